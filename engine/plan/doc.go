// Package plan decides what to do next with one set: MakePlan turns an Input
// (the desired spec, the init containers and network of each revision, what
// Docker holds for the set, the time) into a Plan, with no I/O and no clock.
// It owns the planner's vocabulary, which the engine and the Docker runtime
// share: the observed replicas, init containers and volumes and who owns
// them, the set's status, the container names and labels, and the rendering
// of a revision into the container spec of one ordinal (Render, RenderInit).
//
// It imports config and the rules of health and volumes only. It must never
// import the engine, the state directory (engine/state), the daemon, the
// Docker SDK or anything else that does I/O.
package plan
