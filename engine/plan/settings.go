package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ostset/ostset/config"
)

// ContainerSettings are a replica's process and kernel settings, as docker
// compose names them. Zero values leave the engine's defaults.
type ContainerSettings struct {
	StopSignal string // "SIGINT" or a number
	ShmSize    int64  // bytes of /dev/shm
	Ulimits    []Ulimit
	Sysctls    map[string]string
	Tmpfs      map[string]string // mount target -> mount options ("size=64m,mode=1777")
	CapAdd     []string          // "CAP_SYS_NICE" or "ALL"
	CapDrop    []string
	Init       *bool    // nil: the engine's default
	ExtraHosts []string // "host:ip" lines for /etc/hosts
}

// Ulimit is one resource limit; -1 is unlimited.
type Ulimit struct {
	Name       string
	Soft, Hard int64
}

// containerSettings renders a template's settings. They were validated when
// the set was loaded; an error here is a revision stored by something else.
func containerSettings(t config.Template) (ContainerSettings, error) {
	var s ContainerSettings
	var err error
	if t.StopSignal != "" {
		if s.StopSignal, err = config.CanonicalSignal(t.StopSignal); err != nil {
			return s, fmt.Errorf("stopSignal: %w", err)
		}
	}
	if s.ShmSize, err = parseOptional(t.ShmSize, config.ParseMemory); err != nil {
		return s, fmt.Errorf("shmSize: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Ulimits)) {
		u := t.Ulimits[name]
		s.Ulimits = append(s.Ulimits, Ulimit{Name: name, Soft: int64(u.Soft), Hard: int64(u.Hard)})
	}
	s.Sysctls = maps.Clone(t.Sysctls)
	for _, e := range t.Tmpfs {
		target, opts, err := config.ParseTmpfs(e)
		if err != nil {
			return s, fmt.Errorf("tmpfs: %w", err)
		}
		if s.Tmpfs == nil {
			s.Tmpfs = map[string]string{}
		}
		s.Tmpfs[target] = opts
	}
	if s.CapAdd, err = capabilities(t.CapAdd); err != nil {
		return s, fmt.Errorf("capAdd: %w", err)
	}
	if s.CapDrop, err = capabilities(t.CapDrop); err != nil {
		return s, fmt.Errorf("capDrop: %w", err)
	}
	if t.Init != nil {
		s.Init = new(*t.Init)
	}
	for _, e := range t.ExtraHosts {
		host, ip, err := config.ParseExtraHost(e)
		if err != nil {
			return s, fmt.Errorf("extraHosts: %w", err)
		}
		s.ExtraHosts = append(s.ExtraHosts, host+":"+ip)
	}
	return s, nil
}

func capabilities(caps []string) ([]string, error) {
	var out []string
	for _, c := range caps {
		cc, err := config.CanonicalCapability(c)
		if err != nil {
			return nil, err
		}
		out = append(out, cc)
	}
	return out, nil
}
