package verbs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newDocsCmd writes the man pages (DIR/man/man1) and the bash, zsh and fish
// completions (DIR/completion) of the command tree, for make docs and make
// install: they are made from the commands, so they say what the binary does.
func newDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__docs DIR",
		Short:  "Write the man pages and shell completions into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			root.DisableAutoGenTag = true
			man := filepath.Join(args[0], "man", "man1")
			comp := filepath.Join(args[0], "completion")
			for _, d := range []string{man, comp} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			if err := doc.GenManTree(root, &doc.GenManHeader{Title: "OSTSET", Section: "1", Source: "ostset"}, man); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			for file, gen := range map[string]func(string) error{
				"ostset.bash": func(f string) error { return root.GenBashCompletionFileV2(f, true) },
				"_ostset":     root.GenZshCompletionFile,
				"ostset.fish": func(f string) error { return root.GenFishCompletionFile(f, true) },
			} {
				if err := gen(filepath.Join(comp, file)); err != nil {
					return fmt.Errorf("completion %s: %w", file, err)
				}
			}
			return nil
		},
	}
}
