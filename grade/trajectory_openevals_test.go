package grade

import (
	"fmt"
	"testing"

	"github.com/agenteval/agenteval/engine"
)

// The cases below are openevals' own, at langchain-ai/openevals commit
// bdb122e440070b3afe86717b4be7da23564f198e:
//
//   - tests: python/tests/trajectory/test_trajectory.py (the line of each
//     test's @pytest.mark.parametrize or def is given per case);
//   - code: python/openevals/trajectory/utils.py lines 90-134
//     (_is_trajectory_superset: for each reference call, the first unused
//     output call with the same name and matcher(output args, reference
//     args)), 141-154 (_subset_match, _superset_match), strict.py 34-76,
//     superset.py 33-36, subset.py 33-36 (the superset check with the
//     trajectories swapped) and unordered.py 33-37 (both).
//
// openevals compares whole messages; a scenario's expected trajectory is
// its calls, so each case keeps the tool calls of openevals' messages: one
// []engine.ToolCall per AI message with calls, and the expected calls as
// Steps (one step per reference AI message with calls).

// openevalsFlight is test_tool_args_match_mode_superset's pair (lines
// 388-436): the made call has an argument the reference call lacks.
var (
	flightMade = mkMade("get_flight_info", "f1", "is_cool", true, "flight_no", "LX0112")
	flightWant = mkWant("get_flight_info", "flight_no", "LX0112")
)

func TestTrajectoryMatchesOpenevals(t *testing.T) {
	t.Parallel()
	sf := mkMade("get_weather", "w1", "city", "SF")
	london := mkMade("get_weather", "w2", "city", "London")
	sanFrancisco := mkMade("get_weather", "w3", "city", "San Francisco")
	wSF, wLondon := mkWant("get_weather", "city", "SF"), mkWant("get_weather", "city", "London")
	wSanFrancisco := mkWant("get_weather", "city", "San Francisco")
	type tcase struct {
		name, reason string
		t            Trajectory
		got          []engine.Message
		pass         bool
	}
	tests := []tcase{}
	for _, mode := range []string{"strict", "unordered", "subset", "superset"} {
		tests = append(tests,
			tcase{"same-call/" + mode, "test_trajectory_match (line 11): the same single call passes every mode",
				Trajectory{Mode: mode, Steps: [][]Call{{wSanFrancisco}}}, mkAIs(mkMades(sanFrancisco)), true},
			tcase{"langchain-messages/" + mode, "test_trajectory_match_langchain_messages (line 309): ids and message text do not count",
				Trajectory{Mode: mode, Steps: [][]Call{{wSanFrancisco}}}, mkAIs(mkMades(mkMade("get_weather", "other-id", "city", "San Francisco"))), true},
		)
	}
	// test_trajectory_with_different_tool_message_order (line 73): one AI
	// message [SF, London] against the reference's [London, SF] passes
	// every mode; openevals' strict matches one message's calls in any
	// order, which GroupParallel gives.
	tests = append(tests,
		tcase{"tool-order/strict-grouped", "test_trajectory_with_different_tool_message_order (line 73): strict matches one message's calls in any order (strict.py 53-75)",
			Trajectory{Mode: "strict", GroupParallel: true, Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf, london)), true},
		tcase{"tool-order/unordered", "test_trajectory_with_different_tool_message_order (line 73)",
			Trajectory{Mode: "unordered", Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf, london)), true},
		tcase{"tool-order/subset", "test_trajectory_with_different_tool_message_order (line 73)",
			Trajectory{Mode: "subset", Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf, london)), true},
		tcase{"tool-order/superset", "test_trajectory_with_different_tool_message_order (line 73)",
			Trajectory{Mode: "superset", Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf, london)), true},
	)
	// test_trajectory_with_different_message_count (line 156): two AI
	// messages (SF), (London) against one [London, SF]: strict fails (the
	// message count differs), the others pass.
	for _, c := range []struct {
		mode    string
		grouped bool
		pass    bool
	}{{"strict", true, false}, {"strict", false, false}, {"unordered", false, true}, {"subset", false, true}, {"superset", false, true}} {
		tests = append(tests, tcase{fmt.Sprintf("message-count/%s-grouped=%v", c.mode, c.grouped), "test_trajectory_with_different_message_count (line 156)",
			Trajectory{Mode: c.mode, GroupParallel: c.grouped, Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf), mkMades(london)), c.pass})
	}
	// test_trajectory_subset_tool_call (line 239): one call (SF) against
	// the reference's [London, SF]: only subset passes.
	for _, c := range []struct {
		mode string
		pass bool
	}{{"unordered", false}, {"superset", false}, {"subset", true}, {"strict", false}} {
		tests = append(tests, tcase{"subset-tool-call/" + c.mode, "test_trajectory_subset_tool_call (line 239)",
			Trajectory{Mode: c.mode, Steps: [][]Call{{wLondon, wSF}}}, mkAIs(mkMades(sf)), c.pass})
	}
	// test_trajectory_match_strict_params (line 350): SF against San
	// Francisco fails exact arguments and passes ignore.
	tests = append(tests,
		tcase{"strict-params/exact", "test_trajectory_match_strict_params (line 350): exact compares the arguments",
			Trajectory{Mode: "strict", Args: "exact", Steps: [][]Call{{wSanFrancisco}}}, mkAIs(mkMades(sf)), false},
		tcase{"strict-params/ignore", "test_trajectory_match_strict_params (line 350): ignore compares names only",
			Trajectory{Mode: "strict", Args: "ignore", Steps: [][]Call{{wSanFrancisco}}}, mkAIs(mkMades(sf)), true},
	)
	// test_tool_args_match_mode_superset (line 388), strict (the default
	// mode): the made call {is_cool, flight_no} against {flight_no}.
	for _, c := range []struct {
		args string
		pass bool
	}{{"exact", false}, {"ignore", true}, {"subset", false}, {"superset", true}} {
		tests = append(tests, tcase{"args-mode-superset-test/" + c.args, "test_tool_args_match_mode_superset (line 388): matcher(output args, reference args)",
			Trajectory{Args: c.args, Calls: []Call{flightWant}}, mkAIs(mkMades(flightMade)), c.pass})
	}
	// The same pair in the other modes, as openevals' code decides it (no
	// test of openevals covers them): superset calls matcher(made,
	// expected) as strict does; subset calls matcher(expected, made)
	// (subset.py 33-36); unordered needs both (unordered.py 33-37). The
	// made call has an extra argument ("more"), or lacks one ("fewer").
	fewerMade := mkMade("get_flight_info", "f2", "flight_no", "LX0112")
	fewerWant := mkWant("get_flight_info", "is_cool", true, "flight_no", "LX0112")
	for _, c := range []struct {
		mode, args, made string
		pass             bool
		why              string
	}{
		{"superset", "subset", "more", false, "matcher(made, expected): the made call's is_cool is not expected"},
		{"superset", "superset", "more", true, "matcher(made, expected): every expected argument was made"},
		{"superset", "subset", "fewer", true, "matcher(made, expected): the made arguments are all expected"},
		{"superset", "superset", "fewer", false, "matcher(made, expected): expected is_cool was not made"},
		{"subset", "subset", "more", true, "matcher(expected, made): every expected argument was made, extra ones allowed"},
		{"subset", "superset", "more", false, "matcher(expected, made): superset needs the made arguments within the expected"},
		{"subset", "subset", "fewer", false, "matcher(expected, made): expected is_cool is missing from the made call"},
		{"subset", "superset", "fewer", true, "matcher(expected, made): the made arguments are within the expected ones"},
		{"unordered", "subset", "more", false, "both directions: made within expected fails"},
		{"unordered", "superset", "more", false, "both directions: the way back, made within expected, fails"},
		{"unordered", "subset", "fewer", false, "both directions: the way back, expected within made, fails"},
		{"unordered", "superset", "fewer", false, "both directions: expected within made fails"},
		{"unordered", "ignore", "more", true, "names only, both ways"},
		{"subset", "exact", "more", false, "exact in either direction is equality"},
	} {
		made, want := flightMade, flightWant
		if c.made == "fewer" {
			made, want = fewerMade, fewerWant
		}
		tests = append(tests, tcase{fmt.Sprintf("direction/%s-args-%s-%s", c.mode, c.args, c.made), c.why,
			Trajectory{Mode: c.mode, Args: c.args, Calls: []Call{want}}, mkAIs(mkMades(made)), c.pass})
	}
	// ToolArgs is tool_args_match_overrides with a mode per tool
	// (utils.py 200-218): it replaces Args for that tool only.
	tests = append(tests,
		tcase{"override/per-tool", "a per-tool mode replaces the default for that tool (utils.py 206-211)",
			Trajectory{Mode: "subset", Args: "exact", ToolArgs: map[string]string{"get_flight_info": "subset"}, Calls: []Call{flightWant, wSF}}, mkAIs(mkMades(flightMade, sf)), true},
		tcase{"override/other-tool", "other tools keep the default mode",
			Trajectory{Mode: "subset", Args: "exact", ToolArgs: map[string]string{"get_weather": "subset"}, Calls: []Call{flightWant}}, mkAIs(mkMades(flightMade)), false},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := checkTrajectory(tt.t, tt.got)
			if got.Passed != tt.pass {
				t.Errorf("checkTrajectory(%s) passed = %v, want %v (%s); message %q", tt.name, got.Passed, tt.pass, tt.reason, got.Message)
			}
		})
	}
}
