package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenteval/agenteval/cassette"
	"github.com/agenteval/agenteval/engine/llm"
)

func newCassetteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cassette",
		Short: "Import, check and account for recorded model traffic (go-vcr v2 cassettes)",
		Long: `cassette works on the recorded HTTP traffic that scenarios replay.

  import  converts vcrpy and go-vcr v3/v4 cassettes into agenteval's format (go-vcr v2)
  check   validates cassettes and scans them for credentials
  usage   reports the tokens and the cost of every recorded model call`,
		Example: `  agenteval cassette import -o cassettes/ tests/cassettes/*.yaml
  agenteval cassette check cassettes/
  agenteval cassette usage cassettes/weather.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{err: fmt.Errorf("cassette: unknown command %q\nrun 'agenteval cassette --help' for usage", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCassetteImportCmd(), newCassetteCheckCmd(), newCassetteUsageCmd())
	return cmd
}

func newCassetteImportCmd() *cobra.Command {
	var out string
	var force bool
	var limitArgs []string
	cmd := &cobra.Command{
		Use:   "import [flags] FILE...",
		Short: "Convert vcrpy and go-vcr v3/v4 cassettes into agenteval's go-vcr v2 format",
		Long: `import reads cassettes in the layouts real projects commit — vcrpy (httpx and
requests layouts), pydantic-ai's parsed_body layout, go-vcr v3/v4 and go-vcr v2,
also gzip-compressed — and writes each as a go-vcr v2 cassette: bodies decoded
(gzip, !!binary), header names canonical, a Content-Type where the recording
had none, and every credential (auth headers, cookies, key-shaped strings)
replaced by REDACTED.

Without -o, FILE.yaml is written next to it as FILE.cassette.yaml. With -o, a
folder (or a path ending in /, or more than one FILE) receives the files under
their own names; otherwise -o names the one output file. Existing files are
not replaced unless --force.

It prints one line per file and exits 0 when all were imported, 2 when one
could not be read or is not a cassette.`,
		Example: `  agenteval cassette import tests/cassettes/chat_completion_tool_call.yaml
  agenteval cassette import -o cassettes/ recorded/*.yaml
  agenteval cassette import -o cassettes/weather.yaml --force old/weather.yaml.gz`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{err: errors.New("cassette import: give at least one cassette file\nrun 'agenteval cassette import --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			limits, err := parseLimits("cassette import", limitArgs, true)
			if err != nil {
				return err
			}
			toDir := out != "" && (len(args) > 1 || strings.HasSuffix(out, "/") || isDir(out))
			var failed []string
			for _, in := range args {
				c, layout, err := limits.Cassette().Import(in)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "agenteval: %v\n", err)
					failed = append(failed, in)
					continue
				}
				dest := importedName(in)
				switch {
				case toDir:
					dest = filepath.Join(out, filepath.Base(strings.TrimSuffix(in, ".gz")))
				case out != "":
					dest = out
				}
				if err := c.Save(dest, force); err != nil {
					if errors.Is(err, cassette.ErrCassetteExists) {
						err = fmt.Errorf("%s already exists (use --force to replace it)", dest)
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "agenteval: cassette import %s: %v\n", in, err)
					failed = append(failed, in)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s, %d interactions -> %s\n", in, layout, len(c.Interactions), dest)
			}
			if len(failed) > 0 {
				return &usageError{err: fmt.Errorf("cassette import: %d of %d files not imported", len(failed), len(args))}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file, or folder for several files")
	cmd.Flags().BoolVar(&force, "force", false, "replace existing output files")
	addLimitFlag(cmd, &limitArgs, cassetteLimitUsage)
	return cmd
}

// importedName is where import writes FILE without -o: FILE.cassette.yaml.
func importedName(in string) string {
	base := strings.TrimSuffix(in, ".gz")
	for _, ext := range []string{".yaml", ".yml"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext) + ".cassette.yaml"
		}
	}
	return base + ".cassette.yaml"
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func newCassetteCheckCmd() *cobra.Command {
	var limitArgs []string
	cmd := &cobra.Command{
		Use:   "check [flags] PATH...",
		Short: "Validate cassettes and scan them for credentials",
		Long: `check reads every *.yaml and *.yml file under the given folders (and the files
given directly) as a go-vcr v2 cassette. It reports, as file:line: field:
message, every file that is not one (naming the layout it has, such as a vcrpy
cassette to import first), every malformed field, and every credential left in
a header, URL or body.

It exits 0 when every cassette is clean, 1 when it found a problem, and 2 when
a path could not be read.`,
		Example: `  agenteval cassette check cassettes/
  agenteval cassette check cassettes/weather.yaml cassettes/hitl/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{err: errors.New("cassette check: give at least one folder or file\nrun 'agenteval cassette check --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			limits, err := parseLimits("cassette check", limitArgs, true)
			if err != nil {
				return err
			}
			files, err := cassetteFiles(args)
			if err != nil {
				return &usageError{err: fmt.Errorf("cassette check: %w", err)}
			}
			w := cmd.OutOrStdout()
			bad := 0
			for _, f := range files {
				problems, err := limits.Cassette().Check(f)
				if err != nil {
					return &usageError{err: fmt.Errorf("cassette check: %w", err)}
				}
				if len(problems) > 0 {
					bad++
				}
				for _, p := range problems {
					fmt.Fprintln(w, p.String())
				}
			}
			fmt.Fprintf(w, "%d cassettes checked, %d with problems\n", len(files), bad)
			if bad > 0 {
				setExit(cmd, exitFailed)
			}
			return nil
		},
	}
	addLimitFlag(cmd, &limitArgs, cassetteLimitUsage)
	return cmd
}

// cassetteFiles expands folders into their *.yaml and *.yml files, in
// lexical order; files named directly are kept whatever their name.
func cassetteFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// callUsage is one recorded model call in a usage report.
type callUsage struct {
	Cassette     string  `json:"cassette"`
	Interaction  int     `json:"interaction"`
	Model        string  `json:"model,omitempty"`
	Status       int     `json:"status"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	TotalTokens  int     `json:"total_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Priced       bool    `json:"priced"`
	Note         string  `json:"note,omitempty"`
}

func newCassetteUsageCmd() *cobra.Command {
	var prices, format string
	var limitArgs []string
	cmd := &cobra.Command{
		Use:   "usage [flags] PATH...",
		Short: "Report tokens and cost of the recorded model calls",
		Long: `usage reads the recorded responses of OpenAI Chat Completions and Anthropic
Messages calls (streamed or not) and prints, per call, the model, the tokens
used and what a live run would have paid, then the totals per cassette and
overall. Prices come from a built-in table of list prices (dated ` + llm.PricesAsOf + `); pass
--prices with a JSON table ({"gpt-4o": {"input": 2.5, "output": 10,
"cache_read": 1.25}}, US dollars per million tokens) to override or extend it.
Calls of models without a price count their tokens but no cost.`,
		Example: `  agenteval cassette usage cassettes/
  agenteval cassette usage --prices prices.json --format json cassettes/weather.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{err: errors.New("cassette usage: give at least one folder or file\nrun 'agenteval cassette usage --help' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat("cassette usage", format, "text", "json"); err != nil {
				return err
			}
			limits, err := parseLimits("cassette usage", limitArgs, true)
			if err != nil {
				return err
			}
			table := llm.DefaultPrices
			if prices != "" {
				f, err := os.Open(prices)
				if err != nil {
					return &usageError{err: fmt.Errorf("cassette usage: %w", err)}
				}
				override, err := llm.LoadPrices(f)
				f.Close()
				if err != nil {
					return &usageError{err: fmt.Errorf("cassette usage: %s: %w", prices, err)}
				}
				table = table.Merge(override)
			}
			files, err := cassetteFiles(args)
			if err != nil {
				return &usageError{err: fmt.Errorf("cassette usage: %w", err)}
			}
			var calls []callUsage
			for _, f := range files {
				c, err := limits.Cassette().Load(f)
				if err != nil {
					return &usageError{err: fmt.Errorf("cassette usage: %w", err)}
				}
				calls = append(calls, usageOf(f, c, table)...)
			}
			if format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if calls == nil {
					calls = []callUsage{}
				}
				return enc.Encode(calls)
			}
			return writeUsageText(cmd.OutOrStdout(), calls)
		},
	}
	cmd.Flags().StringVar(&prices, "prices", "", "JSON price table overriding the built-in one")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	addLimitFlag(cmd, &limitArgs, cassetteLimitUsage)
	return cmd
}

func usageOf(file string, c *cassette.Cassette, table llm.PriceTable) []callUsage {
	var out []callUsage
	for i, in := range c.Interactions {
		cu := callUsage{Cassette: file, Interaction: i, Status: in.Response.Code}
		path := in.Request.URL
		if u, err := url.Parse(in.Request.URL); err == nil {
			path = u.Path
		}
		switch {
		case in.Response.Code >= 400:
			cu.Note = "error status"
		default:
			msg, err := llm.ParseRecordedResponse(path, []byte(in.Response.Body))
			if err != nil {
				cu.Note = "unreadable response: " + err.Error()
				break
			}
			if md := msg.ResponseMetadata; md != nil {
				if v, ok := md.Get("model_name"); ok {
					cu.Model, _ = v.(string)
				}
			}
			if u := msg.UsageMetadata; u != nil {
				cu.InputTokens, cu.OutputTokens, cu.TotalTokens = u.InputTokens, u.OutputTokens, u.TotalTokens
				cu.CostUSD, cu.Priced = table.Cost(cu.Model, u)
			} else {
				cu.Note = "no usage recorded"
			}
			if !cu.Priced && cu.Note == "" {
				cu.Note = "no price for this model"
			}
		}
		out = append(out, cu)
	}
	return out
}

func writeUsageText(w io.Writer, calls []callUsage) error {
	type total struct{ in, out, tot, n int }
	var grand total
	var grandCost float64
	flush := func(file string, t total, cost float64) {
		fmt.Fprintf(w, "%s: %d calls, %d input + %d output = %d tokens, $%.6f\n", file, t.n, t.in, t.out, t.tot, cost)
	}
	var cur string
	var curT total
	var curCost float64
	for i, c := range calls {
		if i > 0 && c.Cassette != cur {
			flush(cur, curT, curCost)
			curT, curCost = total{}, 0
		}
		cur = c.Cassette
		line := fmt.Sprintf("%s#%d %s in=%d out=%d total=%d $%.6f", c.Cassette, c.Interaction, orDash(c.Model), c.InputTokens, c.OutputTokens, c.TotalTokens, c.CostUSD)
		if c.Note != "" {
			line += " (" + c.Note + ")"
		}
		fmt.Fprintln(w, line)
		for _, t := range []*total{&curT, &grand} {
			t.in += c.InputTokens
			t.out += c.OutputTokens
			t.tot += c.TotalTokens
			t.n++
		}
		curCost += c.CostUSD
		grandCost += c.CostUSD
	}
	if len(calls) > 0 {
		flush(cur, curT, curCost)
	}
	_, err := fmt.Fprintf(w, "total: %d calls, %d input + %d output = %d tokens, $%.6f (list prices as of %s)\n", grand.n, grand.in, grand.out, grand.tot, grandCost, llm.PricesAsOf)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
