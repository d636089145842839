package config

// Labels of the template of a set mapped from a compose service (package
// compose). The engine reads LabelComposeService to give each replica the
// per-ordinal DNS names of its service ("db-0", "db-0.db"), which a set
// named "<project>-<service>" would not otherwise have, and
// LabelComposeAliases, the service's network aliases (comma-separated),
// which every replica answers to.
const (
	LabelComposeProject = "ostset.compose.project"
	LabelComposeService = "ostset.compose.service"
	LabelComposeAliases = "ostset.compose.aliases"
)
