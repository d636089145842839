package compose

import (
	"fmt"
	"os"
)

// AreComposeFiles tells whether the files are compose files (a top-level
// services: key). Compose files and set files are not mixed in one command.
func AreComposeFiles(files []string) (bool, error) {
	var isCompose, isSet []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		if IsComposeFile(data) {
			isCompose = append(isCompose, f)
		} else {
			isSet = append(isSet, f)
		}
	}
	if len(isCompose) > 0 && len(isSet) > 0 {
		return false, fmt.Errorf("%s is a compose file and %s is not: compose files and set files are not mixed in one command", isCompose[0], isSet[0])
	}
	return len(isCompose) > 0, nil
}
