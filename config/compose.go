package config

// Labels of a set's template that name the replicas: a set mapped from a
// compose service (package compose) carries them. The engine reads
// LabelComposeService to give each replica the per-ordinal DNS names of its
// service ("db-0", "db-0.db"), which a set named "<project>-<service>" would
// not otherwise have, and LabelComposeAliases, the service's network aliases
// (comma-separated), which every replica answers to. LabelComposeProject
// records the compose project a set belongs to: no other project, nor a set
// file, takes the set over. LabelComposeContainer carries the container
// settings of compose the set file has no field for (engine/plan reads it).
const (
	LabelComposeProject   = "ostset.compose.project"
	LabelComposeService   = "ostset.compose.service"
	LabelComposeAliases   = "ostset.compose.aliases"
	LabelComposeContainer = "ostset.compose.container"
)
