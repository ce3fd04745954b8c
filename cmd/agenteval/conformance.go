package main

import (
	"fmt"
	"strings"

	"github.com/agenteval/agenteval/conformance"
	"github.com/spf13/cobra"
)

// defaultVectors is the folder of the public vectors shipped with
// agenteval, relative to the repository's root.
const defaultVectors = "conformance/vectors"

func newConformanceCmd() *cobra.Command {
	var apis []string
	var format string
	cmd := &cobra.Command{
		Use:   "conformance [flags] [DIR...]",
		Short: "Prove the engine behaves like LangGraph, vector by vector",
		Long: `conformance runs every conformance vector (*.json) in the given folders through
the engine's public API and compares everything the vector recorded: outputs,
errors, stream update chunks, model-call inputs, state, history, graph shape.
Without a folder it runs the public vectors shipped in conformance/vectors
(run it from the repository's root).

It prints one line per vector (PASS name, FAIL name: <first difference>, or
SKIP name: <why>) and then "N passed, M failed". It exits 0 only when every
selected vector passed, 1 when one failed or was skipped, and 2 when the
input could not be read.`,
		Example: `  agenteval conformance
  agenteval conformance --api create_react_agent,tool_node
  agenteval conformance --format json conformance/vectors my-vectors/ > conformance.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{defaultVectors}
			}
			selected := map[string]bool{}
			for _, a := range apis {
				for _, p := range strings.Split(a, ",") {
					p = strings.TrimSpace(p)
					if p == "" {
						continue
					}
					switch p {
					case conformance.APICreateReactAgent, conformance.APICreateAgent, conformance.APIToolNode:
						selected[p] = true
					default:
						return &usageError{err: fmt.Errorf("conformance: unknown --api %q: expected create_react_agent, tool_node or create_agent", p)}
					}
				}
			}
			if err := checkFormat("conformance", format, "text", "json"); err != nil {
				return err
			}
			var vectors []*conformance.Vector
			for _, dir := range args {
				vs, err := conformance.LoadDir(dir)
				if err != nil {
					return &usageError{err: fmt.Errorf("conformance: %w", err)}
				}
				vectors = append(vectors, vs...)
			}
			sum := conformance.RunAll(ctxOf(cmd), vectors, selected, conformance.DefaultOptions())
			var err error
			if format == "json" {
				err = sum.WriteJSON(cmd.OutOrStdout())
			} else {
				err = sum.WriteText(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if sum.Failed > 0 || sum.Skipped > 0 {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&apis, "api", nil, "only vectors of these APIs (create_react_agent, tool_node, create_agent), comma-separated")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
