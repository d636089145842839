package config

import (
	"path/filepath"
	"strings"
)

// AbsoluteBindSources makes the relative bind sources of the set's
// containers ("./conf") absolute, relative to dir: the directory of the file
// that names them.
func (s *Set) AbsoluteBindSources(dir string) {
	absolute(s.Template.VolumeMounts, dir)
	for _, c := range s.Template.InitContainers {
		absolute(c.VolumeMounts, dir)
	}
}

func absolute(mounts []VolumeMount, dir string) {
	for i, m := range mounts {
		if strings.HasPrefix(m.Source, ".") {
			if abs, err := filepath.Abs(filepath.Join(dir, m.Source)); err == nil {
				mounts[i].Source = abs
			}
		}
	}
}
