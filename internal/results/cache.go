package results

// The page cache rules of warm and cold runs: how a run's residency is
// sampled, and when a run counts as warm or as cold.

// ResidencySample is how many stores (evenly spaced) a warm open run
// samples for its page cache residency before it starts.
const ResidencySample = 300

// WarmResident is the least share of a warm run's sampled store pages in
// the page cache, before and after it, for the run to count as warm:
// below it, every view names the run as not warm, and the worker's
// prewarm reads the stores again before the run (up to PrewarmPasses).
const WarmResident = 0.99

// NotColdAbove is the median share of a cold run's store pages still in
// the page cache after their eviction above which the run is not cold:
// the filesystem keeps them, or the worker itself maps them (a shared
// store that its engine maps stays open between agents).
const NotColdAbove = 0.05

// ColdProbe is how many stores a cold run evicts and opens before it
// judges that: when the median of their shares stays above NotColdAbove,
// the run stops there, n/a with that median, instead of timing thousands
// of opens that are not cold.
const ColdProbe = 20

// PrewarmPasses is how many times at most a warm run reads its stores in
// before it starts: again while the sample is below WarmResident (a
// machine that drops clean page cache may take some back meanwhile), but
// not when the stores' files are larger than the memory available before
// the read (PrewarmAgain).
const PrewarmPasses = 3

// PrewarmAgain says whether a warm run reads its stores in once more
// after pass number pass, which read readBytes of the files' data with availBytes
// of memory available before it (0: not known) and left the share
// resident of its sample's pages cached: not once the sample is warm or
// the passes are spent, nor when the files are larger than the memory
// available, which no further pass can change.
func PrewarmAgain(pass int, resident float64, readBytes, availBytes int64) bool {
	switch {
	case resident >= WarmResident || pass >= PrewarmPasses:
		return false
	case availBytes > 0 && readBytes > availBytes:
		return false
	}
	return true
}
