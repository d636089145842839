package kubenames

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	labelValueRe = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	labelNameRe  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
)

// CheckLabel is Kubernetes' rule for a label: a key of an optional
// DNS-1123 subdomain prefix and a name of at most 63 letters, digits, '-',
// '_' and '.', beginning and ending with a letter or digit; a value empty or
// a name without prefix. Docker's labels have no such rule.
func CheckLabel(key, value string) error {
	name := key
	if prefix, rest, ok := strings.Cut(key, "/"); ok {
		if len(prefix) > 253 || !dnsSubdomainRe.MatchString(prefix) {
			return fmt.Errorf("label key %q: its prefix is not a DNS-1123 subdomain, as Kubernetes requires", key)
		}
		name = rest
	}
	if len(name) > 63 || !labelNameRe.MatchString(name) {
		return fmt.Errorf("label key %q is not a Kubernetes label name (at most 63 letters, digits, '-', '_' and '.', beginning and ending with a letter or digit)", key)
	}
	if len(value) > 63 || !labelValueRe.MatchString(value) {
		return fmt.Errorf("%q is not a Kubernetes label value (at most 63 letters, digits, '-', '_' and '.', beginning and ending with a letter or digit)", value)
	}
	return nil
}
