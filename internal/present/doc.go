// Package present words what the CLI prints about sets besides its status
// tables: what changed between two revisions, the progress of image pulls,
// conflicts and adopted owners, where an ordinal's init containers are, and
// the writers the CLI's concurrent waits share (Serialised). Each
// is a pure function of the engine's and the set model's types, written to an
// io.Writer. It reads nothing and drives nothing: it must not import the
// Docker SDK or docker/, the daemon, the state store's I/O, or cobra.
package present
