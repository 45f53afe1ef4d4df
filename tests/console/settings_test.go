package console

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	berth "github.com/berthdev/berth/client"
)

// signIn signs a fresh browser in with the admin token.
func signIn(t *testing.T) context.Context {
	t.Helper()
	ctx := browserCtx(t)
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/login"), chromedp.WaitVisible(css("#token")),
		chromedp.SetValue(css("#token"), stack.Token), chromedp.Click(css("#signin")), chromedp.WaitVisible(css("#sandboxes"))))
	return ctx
}

// jsDo runs a statement in the page.
func jsDo(t *testing.T, ctx context.Context, stmt string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](stmt+"; true"))
	must(t, err)
}

// toastText is the page's last message (kept after it hides).
func toastText(t *testing.T, ctx context.Context) string {
	t.Helper()
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("toast").textContent`))
	must(t, err)
	return msg
}

// TestConsoleEditsEnvEgressAndServices: from the sandbox page, set and
// unset an env variable, change the egress policy (mode and allow list,
// with the secrets bound to hosts listed by name, never by value), and
// declare a service, see it run, and remove it. Each change is checked
// through the API, not only on the page.
func TestConsoleEditsEnvEgressAndServices(t *testing.T) {
	dir := artifacts(t)
	bg := context.Background()
	admin := stack.Client()
	name := fmt.Sprintf("cfg-%d", time.Now().UnixNano()%1e7)
	_, _, err := admin.Create(bg, berth.CreateRequest{Name: name, Start: true, Env: map[string]string{"KEEP": "kept"}})
	must(t, err)
	secret, secretValue := "ui-egress/"+name, "egress-s3cret-"+name
	_, _, err = admin.SetSecret(bg, secret, secretValue, []string{"api.example.com"})
	must(t, err)
	t.Cleanup(func() { _ = admin.DeleteSecret(bg, secret) })

	ctx := signIn(t)
	must(t, chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/#/s/"+name), chromedp.WaitVisible(css("#env-set"))))
	// Removing a service asks first; the test says yes.
	jsDo(t, ctx, `window.confirm = () => true`)

	// Env: set one, then unset another.
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#env-key"), "GREETING"), chromedp.SendKeys(css("#env-value"), "hello env"),
		chromedp.Click(css("#env-btn"))))
	waitJS(t, ctx, "GREETING in the env table", `!!document.querySelector('#env-list tr[data-env="GREETING"]')`, 30*time.Second)
	info, err := admin.Get(bg, name)
	must(t, err)
	if info.Env["GREETING"] != "hello env" || info.Env["KEEP"] != "kept" {
		t.Fatalf("after setting GREETING the API says env %v", info.Env)
	}
	must(t, chromedp.Do(ctx, chromedp.Click(css(`button[data-unset="KEEP"]`))))
	waitJS(t, ctx, "KEEP gone from the env table", `!document.querySelector('#env-list tr[data-env="KEEP"]')`, 30*time.Second)
	info, err = admin.Get(bg, name)
	must(t, err)
	if _, ok := info.Env["KEEP"]; ok || info.Env["GREETING"] != "hello env" {
		t.Fatalf("after unsetting KEEP the API says env %v", info.Env)
	}
	must(t, chromedp.Do(ctx, chromedp.ScrollIntoView(css("#env"))))
	shot(t, ctx, dir, "06-env")

	// Egress: an allow list, then none.
	waitJS(t, ctx, "the secret bound to its host", `!!document.querySelector('#egress-secret-list li[data-secret="`+secret+`"]')`, 30*time.Second)
	must(t, chromedp.Do(ctx, chromedp.SetValue(css("#egress-mode"), "allowlist")))
	jsDo(t, ctx, `document.getElementById("egress-mode").dispatchEvent(new Event("change"))`)
	must(t, chromedp.Do(ctx,
		chromedp.SendKeys(css("#egress-domains"), "api.example.com\n*.pypi.org"), chromedp.SendKeys(css("#egress-cidrs"), "140.82.112.0/20"),
		chromedp.Click(css("#egress-btn"))))
	waitJS(t, ctx, "the allow list applied", `document.getElementById("egress-current").textContent === "allowlist"`, 60*time.Second)
	info, err = admin.Get(bg, name)
	must(t, err)
	if p := info.Egress; p == nil || p.Mode != "allowlist" || strings.Join(p.Domains, ",") != "api.example.com,*.pypi.org" || strings.Join(p.CIDRs, ",") != "140.82.112.0/20" {
		t.Fatalf("after the allow list the API says policy %+v", p)
	}
	waitJS(t, ctx, "the secret listed again", `document.querySelector('#egress-secret-list li[data-secret="`+secret+`"]')?.innerText.includes("api.example.com")`, 30*time.Second)
	page, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	must(t, err)
	if strings.Contains(page, secretValue) {
		t.Fatal("a secret's value is on the page")
	}
	must(t, chromedp.Do(ctx, chromedp.ScrollIntoView(css("#egress"))))
	shot(t, ctx, dir, "07-egress")
	jsDo(t, ctx, `document.getElementById("toast").textContent = ""`)
	must(t, chromedp.Do(ctx, chromedp.SetValue(css("#egress-mode"), "none"), chromedp.Click(css("#egress-btn"))))
	waitJS(t, ctx, "egress none applied or refused", `document.getElementById("egress-current").textContent === "none" || document.getElementById("toast").className === "bad"`, 60*time.Second)
	if msg := toastText(t, ctx); msg != "" && !strings.Contains(msg, "changed") {
		t.Fatalf("egress none: the page says %q", msg)
	}
	info, err = admin.Get(bg, name)
	must(t, err)
	if info.Egress == nil || info.Egress.Mode != "none" {
		t.Fatalf("after mode none the API says policy %+v", info.Egress)
	}

	// Services: declare one, see it run, remove it.
	must(t, chromedp.Do(ctx, chromedp.SendKeys(css("#svc-name"), "web"),
		chromedp.SendKeys(css("#svc-cmd"), "mkdir -p /tmp/www && exec httpd -f -p 8000 -h /tmp/www"),
		chromedp.SendKeys(css("#svc-port"), "8000"), chromedp.Click(css("#svc-btn"))))
	waitJS(t, ctx, "the service running", `document.querySelector('#svc-list li[data-svc="web"]')?.dataset.state === "running"`, 60*time.Second)
	svcs, err := admin.ListServices(bg, name)
	must(t, err)
	if len(svcs) != 1 || svcs[0].Name != "web" || svcs[0].Port != 8000 || svcs[0].State != "running" {
		t.Fatalf("after declaring web the API lists %+v", svcs)
	}
	must(t, chromedp.Do(ctx, chromedp.ScrollIntoView(css("#services"))))
	shot(t, ctx, dir, "09-services")
	must(t, chromedp.Do(ctx, chromedp.Click(css(`button[data-remove="web"]`))))
	waitJS(t, ctx, "the service gone", `!document.querySelector('#svc-list li[data-svc="web"]')`, 60*time.Second)
	svcs, err = admin.ListServices(bg, name)
	must(t, err)
	if len(svcs) != 0 {
		t.Fatalf("after removing web the API lists %+v", svcs)
	}
	_, err = admin.Destroy(bg, name)
	must(t, err)
}
