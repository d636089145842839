package engine

import "github.com/ostset/ostset/engine/plan"

// UnfinishedDeleteError is a delete of a set that stopped before it finished
// (plan.UnfinishedDeleteError).
type UnfinishedDeleteError = plan.UnfinishedDeleteError
