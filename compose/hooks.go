package compose

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ostset/ostset/config"
)

// preStartMapped are the fields of a pre_start hook an init container takes;
// the hook inherits the rest from its service (the loader merges them), and
// the init container has them from the replica (its volumes, its network).
var preStartMapped = map[string]bool{
	"image": true, "entrypoint": true, "command": true, "environment": true, "env_file": true,
	"working_dir": true, "user": true, "cpus": true, "mem_limit": true, "labels": true,
	"annotations": true, "label_file": true, "#extensions": true,
}

// preStart maps each pre_start hook onto an init container, run to
// completion before each new replica starts: compose's per_replica hook. A
// hook run once for the service is the same on a one-replica service; with
// several replicas it is listed. A hook has what it does not write from its
// service; a field it writes that ostset does not give an init container is
// listed when it differs from the service's.
func (m *mapper) preStart() {
	for i, h := range m.svc.PreStart {
		where := []string{"pre_start", strconv.Itoa(i)}
		if !h.PerReplica && *m.set.Replicas > 1 {
			m.unmap(fmt.Sprintf("runs once for the %d replicas: per_replica: true runs it before each replica (as an init container)", *m.set.Replicas), where...)
			continue
		}
		c := config.InitContainer{
			Name: "pre-start-" + strconv.Itoa(i), Image: cmp.Or(h.Image, m.set.Template.Image),
			Command: []string(h.Entrypoint), Args: []string(h.Command), WorkingDir: h.WorkingDir, User: h.User,
			VolumeMounts: slices.Clone(m.set.Template.VolumeMounts),
		}
		for k, v := range h.Environment {
			if v != nil {
				if c.Env == nil {
					c.Env = map[string]string{}
				}
				c.Env[k] = *v
			}
		}
		if h.CPUS > 0 {
			c.Resources.CPUs = strconv.FormatFloat(float64(h.CPUS), 'f', -1, 32)
		}
		if h.MemLimit > 0 {
			c.Resources.Memory = strconv.FormatInt(int64(h.MemLimit), 10)
		}
		hv, sv := reflect.ValueOf(h.ContainerSpec), reflect.ValueOf(m.svc.ContainerSpec)
		var differ []string
		for f := range hv.NumField() {
			name, _, _ := strings.Cut(hv.Type().Field(f).Tag.Get("yaml"), ",")
			if name == "" || name == "-" || preStartMapped[name] || hv.Field(f).IsZero() || reflect.DeepEqual(hv.Field(f).Interface(), sv.Field(f).Interface()) {
				continue
			}
			differ = append(differ, name)
		}
		for _, name := range slices.Sorted(slices.Values(differ)) {
			m.unmap("a pre_start hook has its service's "+name+" (ostset's init container shares the replica's)", append(where, name)...)
		}
		m.set.Template.InitContainers = append(m.set.Template.InitContainers, c)
	}
}
