package main

import (
	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/eval"
	"github.com/agenteval/agenteval/harness"
)

func newSchemaCmd() *cobra.Command {
	var evalFile bool
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of scenario files (or, with --eval, of eval files)",
		Long: `schema prints the JSON Schema of scenario files, or with --eval of eval
files, for editors: save it and point the YAML language server at it with a
first line "# yaml-language-server: $schema=<path or URL>".`,
		Example: `  agenteval schema > scenario.schema.json
  agenteval schema --eval > eval.schema.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			schema := harness.SchemaJSON()
			if evalFile {
				schema = eval.SchemaJSON()
			}
			_, err := cmd.OutOrStdout().Write(schema)
			return err
		},
	}
	cmd.Flags().BoolVar(&evalFile, "eval", false, "print the eval files' schema")
	return cmd
}
