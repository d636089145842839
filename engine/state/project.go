package state

import (
	"fmt"

	"github.com/ostset/ostset/config"
)

// OwnerError is a set or a compose job whose name is a stored set that is not
// its own to change: a set of another compose project (two projects' names
// meet: project "P" with service "x-db" and project "P-x" with service "db"
// are both set "P-x-db"), a set file's set taken by a compose project or the
// other way round, or a job (a compose service run to completion) whose name
// is a stored set. Nothing of the stored set is touched.
type OwnerError struct {
	Set string
	// Source and Project are the file and compose project ("" for a set
	// file) that asked; Job says it asked for a job.
	Source, Project string
	Job             bool
	// StoredSource and StoredProject are those of the stored set.
	StoredSource, StoredProject string
}

func (e *OwnerError) Error() string {
	what := "set file " + e.StoredSource
	if e.StoredProject != "" {
		what = fmt.Sprintf("compose project %s (%s)", e.StoredProject, e.StoredSource)
	}
	switch {
	case e.Job && e.StoredProject == e.Project:
		return fmt.Sprintf("%s: %s runs to completion as a job (a service waits for it with service_completed_successfully), but it is a stored set of this project, from %s: "+
			"a job would replace its replicas; delete the set first ('ostset down %s'), or wait for the service as service_started", e.Source, e.Set, e.StoredSource, e.Set)
	case e.Job:
		return fmt.Sprintf("%s: job %s has the name of a stored set of %s: a job would replace its replicas; rename the service or the project (-p)", e.Source, e.Set, what)
	case e.Project != "":
		return fmt.Sprintf("%s: set %s of compose project %s is a stored set of %s: the set and its volumes are not this project's; rename the service or the project (-p), or delete the set first ('ostset down %s')",
			e.Source, e.Set, e.Project, what, e.Set)
	}
	return fmt.Sprintf("%s: set %s is a stored set of %s: a set file does not take it over; delete it first ('ostset down %s'), or give the file's template the label %s: %s",
		e.Source, e.Set, what, e.Set, config.LabelComposeProject, e.StoredProject)
}

// CheckOwner refuses s, a set (job false) or a compose job (job true), when
// stored is the stored set of its name and s may not change it: a job never
// may; a set may when both belong to the same compose project, or neither
// belongs to one (the template label config.LabelComposeProject).
func CheckOwner(stored, s config.Set, job bool) error {
	have, want := stored.Template.Labels[config.LabelComposeProject], s.Template.Labels[config.LabelComposeProject]
	if !job && have == want {
		return nil
	}
	return &OwnerError{Set: s.Name, Source: s.Source, Project: want, Job: job, StoredSource: stored.Source, StoredProject: have}
}
