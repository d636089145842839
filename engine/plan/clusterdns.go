package plan

import "github.com/ostset/ostset/config"

// Cluster-local names. A client or start script written for a cluster names
// a replica <pod>.<service>.<namespace>.svc.cluster.local and a Service
// <service>.<namespace>.svc.cluster.local, or a shorter form its search
// domains complete (<service>.<namespace>, <service>.<namespace>.svc); and a
// pod's hostname -d is its Service's domain. Docker has no search domains:
// each form is a network alias of every replica, and the domain is the
// container's domainname. The Services a manifest has beside the headless
// one (a client Service) are names of every replica too. A set mapped from a
// compose service answers to compose's names only.

// ClusterDomain is the cluster's DNS domain, as a default cluster has it.
const ClusterDomain = "cluster.local"

// clusterNamespace is the namespace an imported manifest named, else default.
func clusterNamespace(set config.Set) string {
	if set.Kubernetes != nil && set.Kubernetes.Namespace != "" {
		return set.Kubernetes.Namespace
	}
	return "default"
}

// clusterNames are a replica's cluster-local DNS names and its domainname.
func clusterNames(set config.Set, spec config.RevisionSpec, name string) (aliases []string, domain string) {
	if set.Template.Labels[config.LabelComposeService] != "" {
		return nil, ""
	}
	ns := clusterNamespace(set)
	forms := func(base string) []string {
		return []string{base + "." + ns, base + "." + ns + ".svc", base + "." + ns + ".svc." + ClusterDomain}
	}
	aliases = append(forms(spec.ServiceName), forms(name+"."+spec.ServiceName)...)
	for _, svc := range spec.Services {
		aliases = append(append(aliases, svc), forms(svc)...)
	}
	return aliases, spec.ServiceName + "." + ns + ".svc." + ClusterDomain
}
