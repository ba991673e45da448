package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// chromium finds the browser: $SIM_CHROMIUM, or chromium on the PATH.
func chromium(t *testing.T) string {
	if p := os.Getenv("SIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("Chromium not found, so the HTML pages are not checked in a browser: install it (Debian/Ubuntu: " +
		"apt-get install -y chromium; .ci/run does) or set SIM_CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// pageCheck is what a page did in the browser.
type pageCheck struct {
	requests []string // URLs requested, the page's own included
	errors   []string // console errors, exceptions, log errors
	charts   []int    // drawn elements (polylines, circles, rects with area) per chart
	png      []byte
}

// loadPage opens a file in headless Chromium (a fresh profile, no
// background traffic) and records its requests, errors and charts.
func loadPage(t *testing.T, bin, path string) pageCheck {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 1400), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first call starts the browser: no timeout on it (chromedp.Run).
	require.NoError(t, chromedp.Do(ctx), "starting %s", bin)
	var mu sync.Mutex
	var pc pageCheck
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			pc.requests = append(pc.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				pc.errors = append(pc.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			pc.errors = append(pc.errors, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				pc.errors = append(pc.errors, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}))
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	tctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(tctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")), "loading %s", path)
	// Drawn elements per chart: marks with a rendered size.
	charts, err := chromedp.Run(tctx, chromedp.Evaluate[[]int](`Array.from(document.querySelectorAll("figure.chart > svg")).map(svg =>
		Array.from(svg.querySelectorAll("polyline, circle, rect.span")).filter(e => {
			const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length)`))
	require.NoError(t, err)
	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // late events
	mu.Lock()
	defer mu.Unlock()
	pc.charts, pc.png = charts, png
	return pc
}

// The HTML pages in a real browser: they load with no console error and
// request nothing but themselves, every chart has drawn elements, and a
// screenshot of each is written to $SIM_SCREENSHOT_DIR (default: the
// test's temporary directory; .ci/run keeps them under artifacts/). A
// control page with a script error and an image from the network shows
// the checks can fail.
func TestHTMLInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	bin := chromium(t)
	dir := t.TempDir()
	shots := os.Getenv("SIM_SCREENSHOT_DIR")
	if shots == "" {
		shots = dir
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))

	run := filepath.Join(dir, "run.html")
	_, stderr, code := sim(t, "run", "hybrid-naive", "--html", run)
	require.Equal(t, 0, code, stderr)
	cmp := filepath.Join(dir, "compare.html")
	_, stderr, code = sim(t, "compare", "hybrid-naive", "karpenter-mixed", "--runs", "2", "--html", cmp)
	require.Equal(t, 0, code, stderr)

	for name, page := range map[string]string{"run": run, "compare": cmp} {
		pc := loadPage(t, bin, page)
		require.Empty(t, pc.errors, "%s: console errors", name)
		require.Equal(t, []string{"file://" + page}, pc.requests, "%s: no request but the page itself", name)
		require.NotEmpty(t, pc.charts, name)
		for i, n := range pc.charts {
			require.Positive(t, n, "%s: chart %d has drawn elements", name, i)
		}
		want := 6 // the five timeline charts and the pending times
		if name == "compare" {
			want = 6 // five overlays and the scatter
		}
		require.Len(t, pc.charts, want, name)
		shot := filepath.Join(shots, "sim-"+name+".png")
		require.NoError(t, os.WriteFile(shot, pc.png, 0o644))
		require.True(t, strings.HasPrefix(string(pc.png), "\x89PNG"), "a PNG")
		t.Logf("screenshot of the %s page: %s", name, shot)
	}

	control := filepath.Join(dir, "control.html")
	require.NoError(t, os.WriteFile(control, []byte(`<!DOCTYPE html><html><body>
<figure class="chart"><svg width="10" height="10"></svg></figure>
<img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></body></html>`), 0o644))
	pc := loadPage(t, bin, control)
	require.NotEmpty(t, pc.errors, "a console error is seen")
	require.Contains(t, pc.requests, "http://127.0.0.1:9/x.png", "a network request is seen")
	require.Equal(t, []int{0}, pc.charts, "an empty chart is seen")
}
