package diffview

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/triage-dev/triage/internal/triage"
)

func TestSmoke(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.TrueColor)
	r.SetHasDarkBackground(true)
	d := "diff --git a/src/client.py b/src/client.py\n--- a/src/client.py\n+++ b/src/client.py\n@@ -1,3 +1,4 @@ def x\n import os\n-BASE = '/v1'\n+BASE = '/v2/invoices/refund'  # \x1b]0;pwn\x07 世界🎉\n+\tx = 1\n keep\n"
	v := New(triage.ParseDiff(d)).Width(60).Style(DefaultStyleFor(r)).Marks([]string{"/v2/invoices/refund"}, []string{"src/client.py"}).Query("os")
	fmt.Println(v.RenderRange(0, 100))
}
