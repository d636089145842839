// Package kubevalidate checks ostset's Kubernetes exports with the API
// server's own create and update validation (the apps and core registry
// strategies of k8s.io/kubernetes), with no server. It is a module of its
// own so that ostset's module, and every build of it, does not pay for
// k8s.io/kubernetes: run it with make test-kubevalidate.
package kubevalidate
