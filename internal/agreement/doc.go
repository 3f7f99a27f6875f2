// Package agreement computes inter-rater statistics and draws held-out
// slices. A taxonomy should not gate anything until two people label the
// same items independently and agree; this package turns that rule into
// numbers a statistician would sign: percent agreement, Cohen's kappa,
// Scott's pi, Fleiss' kappa, Krippendorff's alpha (nominal, with missing
// data and a bootstrap interval), Gwet's AC1, per-class figures, agreement
// on set-valued secondary tags, and a trust verdict.
//
// The package is pure: it imports nothing internal, touches no database,
// file or clock, and is deterministic for the same input and seed. Inputs
// are long-form ratings (unit, rater, label) so any number of raters and
// missing ratings are handled the same way. Values that cannot be computed
// are reported as undefined with a reason, and encode as JSON null, never
// NaN.
package agreement
