package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
	// From the template's config.LabelComposeContainer (see composeSettings).
	Runtime   string // the engine's runtime ("runc", "io.containerd.wasmedge.v1")
	Platform  string // "os/arch[/variant]": the image's platform the create asks for
	PidMode   string // "host"
	OpenStdin bool   // stdin kept open, as docker run -i
	Tty       bool
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
	if err := composeSettings(&s, t.Labels[config.LabelComposeContainer]); err != nil {
		return s, fmt.Errorf("label %s: %w", config.LabelComposeContainer, err)
	}
	return s, nil
}

// composeSettings reads the container settings of a compose service that the
// set file has no field for, carried in a label of its template so that they
// are part of its revision: "runtime=R,platform=P,pid=host,stdin_open=true,tty=true".
func composeSettings(s *ContainerSettings, label string) error {
	if label == "" {
		return nil
	}
	for kv := range strings.SplitSeq(label, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "runtime" && v != "":
			s.Runtime = v
		case k == "platform" && v != "":
			s.Platform = v
		case k == "pid" && v == "host":
			s.PidMode = v
		case k == "stdin_open" && v == "true":
			s.OpenStdin = true
		case k == "tty" && v == "true":
			s.Tty = true
		default:
			return fmt.Errorf("%q: ostset knows runtime=NAME, platform=OS/ARCH, pid=host, stdin_open=true and tty=true", kv)
		}
	}
	return nil
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
