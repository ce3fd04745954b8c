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
	// Multiplicity counts the tests behind the flags (Significant) and how
	// they were corrected: Benjamini–Hochberg over every test of the
	// family (a report's comparisons together).
	Multiplicity *Multiplicity `json:"multiplicity,omitempty"`
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
	// test (stats.CompareProportions) on the effective trials.
	PassRate RateDelta `json:"pass_rate"`
	// CostUSD and Tokens compare the per-trial values with a two-sided
	// Mann-Whitney U test and the Hodges–Lehmann shift.
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
	Delta float64 `json:"delta"`
	P     float64 `json:"p"`
	// Q is P after Benjamini–Hochberg; Significant is Q < 0.05.
	Q           float64 `json:"q"`
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
	// P is the two-sided p-value of Test ("barnard" or "fisher"), Q it
	// after Benjamini–Hochberg; Significant is Q < 0.05.
	P           float64 `json:"p"`
	Q           float64 `json:"q"`
	Test        string  `json:"test"`
	Significant bool    `json:"significant"`
	// MDE is the smallest change from Base this comparison finds 80% of
	// the time at its trials (two-sided, α = 0.05; stats.MinimumDetectableEffect).
	MDE float64 `json:"mde"`
	// BaseErrored and NewErrored count the errored trials left out.
	BaseErrored int `json:"base_errored,omitempty"`
	NewErrored  int `json:"new_errored,omitempty"`
}

// MedianDelta is a change in a per-trial quantity: the medians of each
// side, the Hodges–Lehmann shift New − Base with its 95% interval (what
// the Mann-Whitney U test tests) and the test.
type MedianDelta struct {
	Base float64 `json:"base"`
	New  float64 `json:"new"`
	// Ratio is New/Base (0 when Base is 0).
	Ratio float64 `json:"ratio"`
	// Shift is the Hodges–Lehmann estimate of the shift, [ShiftLo,
	// ShiftHi] its interval.
	Shift   float64 `json:"shift"`
	ShiftLo float64 `json:"shift_lo"`
	ShiftHi float64 `json:"shift_hi"`
	P       float64 `json:"p"`
	// Q is P after Benjamini–Hochberg; Significant is Q < 0.05.
	Q           float64 `json:"q"`
	Significant bool    `json:"significant"`
	// Unknown counts the trials left out because their value is unknown
	// (a cost with no price); Untested is true when a side has no known
	// value, so nothing was tested.
	Unknown  int  `json:"unknown,omitempty"`
	Untested bool `json:"untested,omitempty"`
}

// OverallDelta compares one variant's macro pass rate over the scenarios
// both sides ran.
type OverallDelta struct {
	Variant string  `json:"variant"`
	Cells   int     `json:"cells"`
	Base    float64 `json:"base"`
	New     float64 `json:"new"`
	// Delta is the mean over cells of the change in pass rate, [Lo, Hi]
	// its 95% MOVER interval, P the Cochran–Mantel–Haenszel test's
	// p-value, stratified by scenario (see the eval package doc); with
	// one cell, that cell's Barnard test. Cells that did not run on a
	// side are left out.
	Delta       float64 `json:"delta"`
	Lo          float64 `json:"lo"`
	Hi          float64 `json:"hi"`
	P           float64 `json:"p"`
	Q           float64 `json:"q"`
	Test        string  `json:"test"`
	Significant bool    `json:"significant"`
	// MDE is the smallest drop from Base found 80% of the time at the
	// effective trials of each side, pooled (approximate).
	MDE float64 `json:"mde"`
	// CostUSD compares the cost of every trial of the variant.
	CostUSD MedianDelta `json:"cost_usd"`
}

// CheckResult is one threshold checked against one cell or variant.
type CheckResult struct {
	Threshold string  `json:"threshold"`
	Scope     string  `json:"scope"`
	Got       float64 `json:"got"`
	Pass      bool    `json:"pass"`
	// P is the one-sided p-value of the evidence that the threshold is
	// broken, PAdjusted it after Holm over every such check (0 for a
	// bound check, which needs no correction).
	P         float64 `json:"p,omitempty"`
	PAdjusted float64 `json:"p_adjusted,omitempty"`
	// Why says how the threshold was decided.
	Why string `json:"why,omitempty"`
}
