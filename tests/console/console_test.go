// Package console drives the gateway's browser console (/ui) with headless
// Chromium over the DevTools protocol against the real stack: sign in,
// create a sandbox, a terminal command, a process's live logs, a file
// uploaded and downloaded byte for byte, the event stream growing through
// a sleep and a wake, and the cookie and CSRF rules. Screenshots of each
// page go to the artifacts directory (BERTH_TEST_ARTIFACTS, or one under
// the system's temp directory, named in the log).
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

var stack *stacktest.Stack

func TestMain(m *testing.M) {
	if chromium() == "" {
		fmt.Fprintln(os.Stderr, "SKIP tests/console: no chromium on PATH (apt-get install -y chromium)")
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := stacktest.Start(ctx, stacktest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Exit(code)
}

func chromium() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func artifacts(t *testing.T) string {
	dir := os.Getenv("BERTH_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "berth-console-artifacts")
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("artifacts (screenshots, downloads) in %s", dir)
	return dir
}

func browserCtx(t testing.TB) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium()), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancel3)
	return ctx
}

func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitText polls a JS expression until it returns true.
func waitJS(t *testing.T, ctx context.Context, what, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 3000)`))
			t.Fatalf("timed out (%s) waiting for %s; the page says:\n%s", timeout, what, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func eventCount(t *testing.T, ctx context.Context) int {
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#event-list li").length`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestConsoleInABrowser(t *testing.T) {
	dir := artifacts(t)
	ctx := browserCtx(t)
	name := fmt.Sprintf("ui-%d", time.Now().UnixNano()%1e7)

	// Not signed in: every page sends the browser to the login page.
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/"), chromedp.WaitVisible(css("#token"))))
	url := location(t, ctx)
	if !strings.HasSuffix(url, "/ui/login") {
		t.Fatalf("unauthenticated /ui/ landed on %s", url)
	}
	shot(t, ctx, dir, "01-login")
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#token"), "wrong"), chromedp.Click(css("#signin")), chromedp.WaitVisible(css("#error"))))
	must(t, chromedp.Do(ctx, chromedp.SetValue(css("#token"), stack.Token), chromedp.Click(css("#signin")), chromedp.WaitVisible(css("#sandboxes"))))

	// The session cookie: HttpOnly, SameSite=Strict, not readable by script.
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	must(t, err)
	var found bool
	for _, c := range res.Cookies {
		if c.Name == "berth_session" {
			found = true
			if !c.HTTPOnly || c.SameSite != network.CookieSameSiteStrict || strings.Contains(c.Value, stack.Token) {
				t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, no token inside", c)
			}
		}
	}
	if !found {
		t.Fatalf("no berth_session cookie among %v", res.Cookies)
	}
	docCookie, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`))
	must(t, err)
	if strings.Contains(docCookie, "berth_session") {
		t.Fatal("script can read the session cookie")
	}
	// CSRF: a state-changing request with the cookie but no CSRF token is
	// refused; the page's own requests carry it.
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/v1/sandboxes", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({name: "csrf-`+name+`"})}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	must(t, err)
	if status != 403 {
		t.Fatalf("a POST without the CSRF token answered %d, want 403", status)
	}

	// Create a sandbox from the list page.
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#new-name"), name), chromedp.Click(css("#create-btn"))))
	waitJS(t, ctx, "the sandbox page with its first events", `document.querySelectorAll("#event-list li").length >= 1`, 30*time.Second)

	// A command in the terminal, its output on screen.
	must(t, chromedp.Do(ctx, chromedp.Click(css("#term-open"))))
	waitJS(t, ctx, "the terminal to connect", `document.getElementById("term-state").textContent === "connected"`, 60*time.Second)
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#term .xterm-helper-textarea"), "echo hello-$((6*7))\r")))
	waitJS(t, ctx, "the command's output in the terminal", `document.querySelector("#term .xterm-rows").innerText.includes("hello-42")`, 30*time.Second)
	// Seen, not only present: the text's colour is not the background's
	// (the renderer's theme styles must not be blocked).
	colours, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const row = [...document.querySelectorAll("#term .xterm-rows > div")].find(d => d.innerText.includes("hello-42"));
		const span = row.querySelector("span") || row;
		return getComputedStyle(span).color + " on " + getComputedStyle(document.querySelector("#term .xterm-viewport")).backgroundColor;
	})()`))
	must(t, err)
	if fg, bg, _ := strings.Cut(colours, " on "); fg == bg {
		t.Fatalf("the terminal's text is drawn in its background colour: %s", colours)
	}
	shot(t, ctx, dir, "03-terminal")

	// The socket drops while a command is about to print: the terminal
	// reconnects with its cursor, the output made meanwhile is replayed
	// once, and nothing shown before comes again.
	rows := `document.querySelector("#term .xterm-rows").innerText`
	count := func(s string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](rows+`.split("`+s+`").length - 1`))
		must(t, err)
		return n
	}
	hellos := count("hello-42")
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#term .xterm-helper-textarea"), "sleep 1; echo after-drop-$((7*6))\r")))
	waitJS(t, ctx, "the command echoed", rows+`.includes("after-drop-$((7*6))")`, 30*time.Second)
	must(t, chromedp.Do(ctx, chromedp.Click(css("#term-reconnect"))))
	waitJS(t, ctx, "a second connection", `document.getElementById("terminal").dataset.connects === "2" && document.getElementById("term-state").textContent === "connected"`, 30*time.Second)
	waitJS(t, ctx, "the output made across the drop", rows+`.includes("after-drop-42")`, 30*time.Second)
	if n := count("after-drop-42"); n != 1 {
		t.Fatalf("the output made across the drop shows %d times", n)
	}
	if n := count("hello-42"); n != hellos {
		t.Fatalf("the reconnect replayed what was shown before: hello-42 %d times, %d before", n, hellos)
	}
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#term .xterm-helper-textarea"), "echo still-$((5*5))\r")))
	waitJS(t, ctx, "input after the reconnect", rows+`.includes("still-25")`, 30*time.Second)

	// A process's logs, live: lines arrive one a second, then its exit.
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#proc-cmd"), "for i in 1 2 3; do echo line-$i; sleep 1; done"), chromedp.Click(css("#proc-btn"))))
	waitJS(t, ctx, "the first log line while the process runs", `document.getElementById("proc-logs").innerText.includes("line-1")`, 30*time.Second)
	early, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("proc-logs").innerText`))
	must(t, err)
	waitJS(t, ctx, "the last line and the exit", `document.getElementById("proc-logs").innerText.includes("line-3") && document.getElementById("proc-logs").innerText.includes("[exit 0]")`, 30*time.Second)
	if strings.Contains(early, "[exit") {
		t.Logf("the first look at the logs already held the exit (the machine is slow): %q", early)
	}
	shot(t, ctx, dir, "04-sandbox-logs")

	// Upload a file with every byte value, download it through the link.
	payload := make([]byte, 300<<10)
	_, _ = rand.Read(payload)
	for i := range 256 {
		payload[i] = byte(i)
	}
	src := filepath.Join(t.TempDir(), "blob.bin")
	must(t, os.WriteFile(src, payload, 0o644))
	must(t, chromedp.Do(ctx, chromedp.SetUploadFiles(css("#file-upload"), []string{src})))
	waitJS(t, ctx, "the uploaded file in the list", `!!document.querySelector('#file-list li[data-file="blob.bin"]')`, 30*time.Second)
	dl := filepath.Join(dir, "downloads")
	must(t, os.MkdirAll(dl, 0o755))
	os.Remove(filepath.Join(dl, "blob.bin"))
	_, err = chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dl})
	must(t, err)
	must(t, chromedp.Do(ctx, chromedp.Click(css(`#file-list a[data-download="blob.bin"]`))))
	var got []byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dl, "blob.bin"))
		if err == nil && len(b) == len(payload) {
			got = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the download did not arrive in %s (%v, %d bytes)", dl, err, len(b))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("the downloaded file differs from the uploaded one")
	}
	shot(t, ctx, dir, "05-files")

	// Sleep and wake from the page; the event stream grows live.
	before := eventCount(t, ctx)
	must(t, chromedp.Do(ctx, chromedp.Click(css(`button[data-op="sleep"]`))))
	waitJS(t, ctx, "stopped", `document.getElementById("status").textContent === "stopped"`, 90*time.Second)
	must(t, chromedp.Do(ctx, chromedp.Click(css(`button[data-op="start"]`))))
	waitJS(t, ctx, "running again", `document.getElementById("status").textContent === "running"`, 90*time.Second)
	after := eventCount(t, ctx)
	if after < before+4 { // sleep-requested, backup-created, stopped, start-requested, started…
		t.Fatalf("the event list grew from %d to %d through a sleep and a wake", before, after)
	}
	types, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#event-list li")].map(l => l.dataset.type).join(",")`))
	must(t, err)
	for _, want := range []string{"sleep-requested", "stopped", "start-requested", "started"} {
		if !strings.Contains(types, want) {
			t.Errorf("the live event list lacks %s: %s", want, types)
		}
	}
	shot(t, ctx, dir, "06-sandbox-after-wake")

	// The list, hosts and secrets pages.
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/"), chromedp.WaitVisible(css(`#sandboxes tr[data-name="`+name+`"]`))))
	shot(t, ctx, dir, "02-list")
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/hosts"), chromedp.WaitVisible(css("#hosts"))))
	shot(t, ctx, dir, "07-hosts")
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/secrets"), chromedp.WaitVisible(css("#secrets"))))
	// A secret set from the page: listed by name and host, its value
	// nowhere on the page.
	secretName := "ui/" + name
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#secret-name"), secretName), chromedp.SendKeys(css("#secret-hosts"), "api.example.com"),
		chromedp.SendKeys(css("#secret-value"), "s3cret-"+name), chromedp.Click(css("#secret-btn"))))
	waitJS(t, ctx, "the new secret in the list", `document.getElementById("secrets").innerText.includes("`+secretName+`")`, 20*time.Second)
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML + [...document.querySelectorAll("input")].map(i => i.value).join(" ")`))
	must(t, err)
	if strings.Contains(html, "s3cret-"+name) {
		t.Fatal("the secret's value is still on the page")
	}
	shot(t, ctx, dir, "08-secrets")

	// Sign out: the cookie is gone and the pages are closed again.
	must(t, chromedp.Do(ctx, chromedp.Click(css("#signout")), chromedp.WaitVisible(css("#token"))))
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/"), chromedp.WaitVisible(css("#token"))))
	url = location(t, ctx)
	if !strings.HasSuffix(url, "/ui/login") {
		t.Fatalf("after sign-out /ui/ landed on %s", url)
	}
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := chromedp.Run(ctx, chromedp.Location())
	must(t, err)
	return u
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConsoleSignedInWithAScopedToken: a browser signed in with a token
// for one sandbox lists that sandbox only, cannot open another's page or
// the admin's pages, and is signed out when the token is revoked.
func TestConsoleSignedInWithAScopedToken(t *testing.T) {
	dir := artifacts(t)
	bg := context.Background()
	admin := stack.Client()
	b := fmt.Sprintf("sc-%d", time.Now().UnixNano()%1e7)
	mine, theirs := b+"-mine", b+"-theirs"
	for _, n := range []string{mine, theirs} {
		_, _, err := admin.Create(bg, berth.CreateRequest{Name: n})
		must(t, err)
	}
	tok, err := admin.CreateToken(bg, "browser", berth.TokenOptions{Sandboxes: []string{mine}, Scopes: []string{"read", "files"}, TTL: time.Hour})
	must(t, err)

	ctx := browserCtx(t)
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/login"), chromedp.WaitVisible(css("#token")),
		chromedp.SetValue(css("#token"), tok.Value), chromedp.Click(css("#signin")), chromedp.WaitVisible(css(`#sandboxes tr[data-name="`+mine+`"]`))))
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#sandboxes tbody tr")].map(r => r.dataset.name)`))
	must(t, err)
	for _, r := range rows {
		if r != mine {
			t.Errorf("the list shows %s, outside the token's reach (rows %v)", r, rows)
		}
	}
	who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("who").textContent`))
	must(t, err)
	if !strings.Contains(who, "browser") {
		t.Errorf("the header says %q, not the token's name", who)
	}
	shot(t, ctx, dir, "01-scoped-list")
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/s/"+theirs)))
	waitJS(t, ctx, "the refusal of another sandbox", `document.body.innerText.includes("FORBIDDEN")`, 20*time.Second)
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/hosts")))
	waitJS(t, ctx, "the refusal of the hosts page", `document.body.innerText.includes("admin token")`, 20*time.Second)
	shot(t, ctx, dir, "02-scoped-refused")

	must(t, admin.RevokeToken(bg, tok.ID))
	time.Sleep(6 * time.Second) // the gateway's token cache bound (BERTH_TOKEN_CACHE, 5s by default)
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/")))
	waitJS(t, ctx, "the login page after the revocation", `location.pathname === "/ui/login"`, 20*time.Second)
}
