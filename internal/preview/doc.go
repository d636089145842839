// Package preview says what `ostset up` would change, without changing
// anything: for each set of a file, the revision it would make against the one
// stored (the CHANGES of rollout history), what else of the spec changes, and
// the plan of the rollout (which replicas are created, replaced at which
// revision, removed; which volumes and networks are made or removed), found by
// the planner itself. It backs `ostset diff` and `ostset up --dry-run`.
//
// It reads the state directory and the engine through the controller and the
// functions it is handed, and writes neither: no state is saved, no image
// pulled, no container, volume or network made, not even the state
// directory's ID. It never imports cobra, docker/ or the Docker SDK.
package preview
