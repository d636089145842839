// Package kubenames checks the names of Kubernetes objects, keys and paths
// that become file paths, as the API server checks them. It imports nothing
// of ostset.
package kubenames

import (
	"fmt"
	"regexp"
	"strings"
)

// The names of a pod's volumes, the keys of ConfigMaps and Secrets and the
// paths of a volume's items become paths of files ostset writes. They are
// checked as the Kubernetes API server checks them, so a manifest it
// refuses (a volume named "../../srv", a key "..") is refused here too,
// before anything is written.

var (
	dnsLabelRe     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomainRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	configKeyRe    = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)
)

// CheckDNSLabel is Kubernetes' rule for a volume's name (RFC 1123 label).
func CheckDNSLabel(s string) error {
	if len(s) > 63 || !dnsLabelRe.MatchString(s) {
		return fmt.Errorf("%q is not a DNS-1123 label (at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit), as Kubernetes requires", s)
	}
	return nil
}

// CheckDNSSubdomain is Kubernetes' rule for the name of a ConfigMap or a
// Secret (RFC 1123 subdomain).
func CheckDNSSubdomain(s string) error {
	if len(s) > 253 || !dnsSubdomainRe.MatchString(s) {
		return fmt.Errorf("%q is not a DNS-1123 subdomain (at most 253 lowercase letters, digits, '-' and '.'), as Kubernetes requires of an object's name", s)
	}
	return nil
}

// CheckConfigKey is Kubernetes' rule for a key of a ConfigMap or a Secret,
// which names a file of its volume.
func CheckConfigKey(s string) error {
	if len(s) > 253 || !configKeyRe.MatchString(s) || s == "." || s == ".." {
		return fmt.Errorf("%q is not a valid key (letters, digits, '-', '_' and '.', not '.' or '..'), as Kubernetes requires", s)
	}
	return nil
}

// CheckItemPath is Kubernetes' rule for items[].path of a ConfigMap or
// Secret volume: relative, with no ".." element.
func CheckItemPath(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("a path inside the volume is required")
	case strings.HasPrefix(s, "/"):
		return fmt.Errorf("%q: a relative path inside the volume, not an absolute one", s)
	case len(s) > 4096:
		return fmt.Errorf("a path inside the volume of %d characters is too long", len(s))
	}
	for _, e := range strings.Split(s, "/") {
		if e == ".." || strings.HasPrefix(e, "..") {
			return fmt.Errorf("%q: a relative path inside the volume, with no element '..' or starting with '..'", s)
		}
	}
	if strings.Trim(strings.ReplaceAll(s, "/", ""), ".") == "" {
		return fmt.Errorf("%q: the path names the volume itself, not a file in it", s)
	}
	return nil
}
