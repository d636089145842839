package compose

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

// What a compose file keeps secret stays secret in a cluster: the files of
// its secrets (and configs) become Secret (and ConfigMap) objects mounted as
// volumes where compose puts them, and a variable that holds a password,
// token or key becomes a key of a Secret the container reads through
// secretKeyRef, not a value written in the StatefulSet.

// secretName tells a variable that holds a secret by its name: PASSWORD,
// SECRET, TOKEN, a KEY... (not a _FILE variable, which names a file).
var secretName = regexp.MustCompile(`(?i)(PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|(^|_)PASS$|(API|ACCESS|PRIVATE|AUTH|SECRET|ENCRYPTION|MASTER)_?KEY)`)

// IsSecretVariable reports whether a variable's name says it holds a secret.
func IsSecretVariable(name string) bool {
	return secretName.MatchString(name) && !strings.HasSuffix(strings.ToUpper(name), "_FILE")
}

// kubeObjects turns s's secret variables into references to a Secret, and
// the files of its secrets and configs into Secret and ConfigMap volumes;
// it returns those objects, and what a cluster does otherwise.
func (p *Project) kubeObjects(s *config.Set) (objects []*yaml.Node, warnings []string) {
	var secretVars []string
	for _, k := range slices.Sorted(maps.Keys(s.Template.Env)) {
		if IsSecretVariable(k) && s.Template.Env[k] != "" && !strings.Contains(s.Template.Env[k], "{{") {
			secretVars = append(secretVars, k)
		}
	}
	if len(secretVars) > 0 {
		name := s.Name + "-env"
		data := map[string][]byte{}
		s.Template.Env = maps.Clone(s.Template.Env)
		s.Template.EnvRefs = maps.Clone(s.Template.EnvRefs)
		if s.Template.EnvRefs == nil {
			s.Template.EnvRefs = map[string]envref.Ref{}
		}
		for _, k := range secretVars {
			data[k] = []byte(s.Template.Env[k])
			s.Template.EnvRefs[k] = envref.Ref{Kind: envref.Secret, Name: name, Key: k, Digest: envref.Digest(data[k])}
			delete(s.Template.Env, k)
		}
		objects = append(objects, kubeDataObject("Secret", name, data))
		warnings = append(warnings, fmt.Sprintf("%s: %s: written to the Secret %s, read through secretKeyRef: keep the manifests private, or create the Secret in the cluster yourself and leave it out", s.Name, strings.Join(secretVars, ", "), name))
	}
	for _, m := range s.Template.VolumeMounts {
		var files []config.ConfigFile
		for _, f := range p.ConfigFiles {
			if f.Dir == m.Source {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		vol := config.KubernetesVolume{Name: strings.TrimPrefix(anonymousName(m.Target), "anon-"), Kind: "ConfigMap", MountPath: m.Target, DefaultMode: files[0].Mode}
		data := map[string][]byte{}
		for _, f := range files {
			data[f.Name] = f.Data
			if f.Secret {
				vol.Kind = "Secret"
			}
			if f.Mode != vol.DefaultMode {
				vol.DefaultMode = 0
				warnings = append(warnings, fmt.Sprintf("%s: %s/%s: mode %o: a volume gives all its files one mode here; written with Kubernetes' 0644", s.Name, m.Target, f.Name, f.Mode))
			}
			if f.UID != 0 || f.GID != 0 {
				warnings = append(warnings, fmt.Sprintf("%s: %s/%s: uid and gid: a Secret or ConfigMap volume's files belong to root (and the pod's fsGroup)", s.Name, m.Target, f.Name))
			}
		}
		vol.Object = s.Name + "-" + vol.Name
		objects = append(objects, kubeDataObject(vol.Kind, vol.Object, data))
		if s.Kubernetes == nil {
			s.Kubernetes = &config.KubernetesNames{}
		} else {
			k := *s.Kubernetes
			s.Kubernetes = &k
		}
		s.Kubernetes.Volumes = append(slices.Clone(s.Kubernetes.Volumes), vol)
	}
	return objects, warnings
}

// kubeDataObject is a v1 Secret (data in base64) or ConfigMap (data as text).
func kubeDataObject(kind, name string, data map[string][]byte) *yaml.Node {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	d := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		v := string(data[k])
		if kind == "Secret" {
			v = base64.StdEncoding.EncodeToString(data[k])
		}
		d.Content = append(d.Content, str(k), str(v))
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("apiVersion"), str("v1"), str("kind"), str(kind),
		str("metadata"), {Kind: yaml.MappingNode, Content: []*yaml.Node{str("name"), str(name)}},
		str("data"), d,
	}}
}

// EncodeObjects writes objects as YAML documents, each ending in "---".
func EncodeObjects(objects []*yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range objects {
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(o); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
		b.WriteString("---\n")
	}
	return b.Bytes(), nil
}
