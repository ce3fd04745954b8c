package conformance

import (
	"os"
	"testing"
)

// FuzzParse: a vector file from outside never panics the parser.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"cra_single_tool_call.json", "cra_interrupt_before_tools_edit_args.json"} {
		if data, err := os.ReadFile(vectorsDir + "/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"name":"x","api":"tool_node","steps":[],"expected":[]}`))
	f.Add([]byte(`{"name":"x","api":"nope"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err == nil && (v.Name == "" || len(v.Steps) != len(v.Expected)) {
			t.Fatalf("Parse accepted an invalid vector: %+v", v)
		}
	})
}
