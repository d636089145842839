// Package state is the state directory: one file per set (Store, State) and
// the set's transitions (apply, undo, restart, the rollout's progress and its
// automatic rollback, the crash-loop back-off, the records of removals,
// failures and volume use, adopted owners); the per-set and per-network
// locks with their fair queue; the event log; the kept output of replaced
// containers; the daemon lock; the directory's ID, format, permissions and
// what a full disk does to a write.
//
// It records what passes observed and planned, so it speaks the planner's
// vocabulary (engine/plan), and reads config and the rules of health and
// volumes. It must never import the engine, the daemon (engine/daemon), the
// Docker SDK or a file format other than config's.
package state
