// Package oracle compares ostset's planner (engine/plan) with Kubernetes' own
// StatefulSet controller, driven in-process over in-memory pods and claims.
// It is a module of its own so that the main module does not depend on
// k8s.io/kubernetes; run it with `make test-oracle`.
package oracle
