package volumes

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
)

// UncoveredImageVolumes returns a warning for each mount point the image
// declares (VOLUME) that no claim, volume mount or tmpfs of the template
// covers. Docker gives each container an anonymous volume there: a new one
// for every replacement, so its data is lost at each, and ostset removes it
// with the container. Only a mount at the very path covers it (Docker mounts
// the anonymous volume over a mount of a parent directory, measured on 20.10).
func UncoveredImageVolumes(t config.Template, claims []config.VolumeClaimTemplate, declared []string) []string {
	var targets []string
	for _, c := range claims {
		targets = append(targets, path.Clean(c.MountPath))
	}
	for _, m := range t.VolumeMounts {
		targets = append(targets, path.Clean(m.Target))
	}
	for _, e := range t.Tmpfs {
		if target, _, err := config.ParseTmpfs(e); err == nil {
			targets = append(targets, path.Clean(target))
		}
	}
	var warnings []string
	for _, d := range declared {
		d = path.Clean(d)
		if slices.Contains(targets, d) {
			continue
		}
		msg := fmt.Sprintf("template.image %s declares VOLUME %s, which no volumeClaimTemplates mountPath, volumeMounts target or tmpfs covers: each replica container gets an anonymous volume there, and its data is lost at each replacement (update, rollout restart, recreate, scale-down); add a claim with mountPath: %s to keep it", t.Image, d, d)
		for _, p := range targets {
			if strings.HasPrefix(d, strings.TrimSuffix(p, "/")+"/") {
				msg += fmt.Sprintf(" (the mount at %s does not cover it: Docker mounts the anonymous volume over it)", p)
				break
			}
		}
		warnings = append(warnings, msg)
	}
	return warnings
}
