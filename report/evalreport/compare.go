package evalreport

// Comparison compares a new run (or variant) with a base one, cell by cell
// and overall.
type Comparison struct {
	// Base and New name what is compared: two variants of one eval, or
	// two reports' files.
	Base string `json:"base"`
	New  string `json:"new"`
	// Cells pair the cells both sides have, in the new side's order.
	Cells []CellDelta `json:"cells"`
	// Overall compares the macro pass rates, one entry per variant.
	Overall []OverallDelta `json:"overall"`
	// OnlyBase and OnlyNew name the cells one side lacks.
	OnlyBase []string `json:"only_base,omitempty"`
	OnlyNew  []string `json:"only_new,omitempty"`
}

// CellDelta is one cell in both runs.
type CellDelta struct {
	// ID is the cell's scenario (and case); Variant its variant on the new
	// side.
	ID      string `json:"id"`
	Variant string `json:"variant"`
	// PassRate is the change in pass rate, tested with Barnard's exact
	// test (stats.CompareProportions).
	PassRate RateDelta `json:"pass_rate"`
	// CostUSD and Tokens compare the per-trial values with a two-sided
	// Mann-Whitney U test.
	CostUSD MedianDelta `json:"cost_usd"`
	Tokens  MedianDelta `json:"tokens"`
	// LatencyMS compares wall-clock latencies; only when both reports
	// have timings (never inside one eval report, which must be stable).
	LatencyMS *MedianDelta `json:"latency_ms,omitempty"`
	// Scores compare the mean of each named score both cells have, by
	// name.
	Scores []ScoreDelta `json:"scores,omitempty"`
}

// ScoreDelta is a change in a named score's mean over trials, tested
// with a two-sided Mann-Whitney U test on the per-trial scores.
type ScoreDelta struct {
	Name string `json:"name"`
	// Grader is the grader's kind for a grader's score.
	Grader string  `json:"grader,omitempty"`
	Base   float64 `json:"base"`
	New    float64 `json:"new"`
	// Delta is New − Base.
	Delta       float64 `json:"delta"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
}

// RateDelta is a change in pass rate.
type RateDelta struct {
	BasePassed int     `json:"base_passed"`
	BaseN      int     `json:"base_n"`
	NewPassed  int     `json:"new_passed"`
	NewN       int     `json:"new_n"`
	Base       float64 `json:"base"`
	New        float64 `json:"new"`
	// Delta is New − Base with Newcombe's 95% interval [Lo, Hi].
	Delta float64 `json:"delta"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// P is the two-sided p-value of Test ("barnard" or "fisher").
	P           float64 `json:"p"`
	Test        string  `json:"test"`
	Significant bool    `json:"significant"`
}

// MedianDelta is a change in a per-trial quantity's median.
type MedianDelta struct {
	Base float64 `json:"base"`
	New  float64 `json:"new"`
	// Ratio is New/Base (0 when Base is 0).
	Ratio       float64 `json:"ratio"`
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
}

// OverallDelta compares one variant's macro pass rate over the scenarios
// both sides ran.
type OverallDelta struct {
	Variant string  `json:"variant"`
	Cells   int     `json:"cells"`
	Base    float64 `json:"base"`
	New     float64 `json:"new"`
	// Delta is the mean over cells of the change in pass rate, [Lo, Hi]
	// its 95% t interval, P the paired t test's p-value (see the package
	// doc); with one cell, that cell's Barnard test.
	Delta       float64 `json:"delta"`
	Lo          float64 `json:"lo"`
	Hi          float64 `json:"hi"`
	P           float64 `json:"p"`
	Test        string  `json:"test"`
	Significant bool    `json:"significant"`
	// CostUSD compares the cost of every trial of the variant.
	CostUSD MedianDelta `json:"cost_usd"`
}

// CheckResult is one threshold checked against one cell or variant.
type CheckResult struct {
	Threshold string  `json:"threshold"`
	Scope     string  `json:"scope"`
	Got       float64 `json:"got"`
	Pass      bool    `json:"pass"`
	// Why explains a threshold that holds only because the change is not
	// significant.
	Why string `json:"why,omitempty"`
}
