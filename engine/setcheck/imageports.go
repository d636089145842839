package setcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ostset/ostset/config"
)

// UnexposedPorts returns a warning for each containerPort the image does not
// expose (EXPOSE) when it exposes others: most likely a typo, or the port of
// another image, and a client connecting there finds nothing listening. An
// image that exposes nothing says nothing of its ports, and gets none.
func UnexposedPorts(s config.Set, exposed []string) []string {
	if len(exposed) == 0 {
		return nil
	}
	var warnings []string
	for i, p := range s.Template.Ports {
		proto := strings.ToLower(p.Protocol)
		if proto == "" {
			proto = "tcp"
		}
		port := fmt.Sprintf("%d/%s", p.ContainerPort, proto)
		if slices.Contains(exposed, port) {
			continue
		}
		field := fmt.Sprintf("template.ports[%d].containerPort", i)
		at := s.FieldSource(field)
		if at != "" {
			at += ": "
		}
		warnings = append(warnings, fmt.Sprintf("%s%s: %s is not a port that image %s exposes (it exposes %s): is it a typo? Docker publishes it all the same, but nothing may listen there",
			at, field, port, s.Template.Image, strings.Join(exposed, ", ")))
	}
	return warnings
}
