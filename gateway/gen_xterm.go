//go:build ignore

// gen_xterm bundles Debian's node-xterm (xterm.js 3.x, MIT; CommonJS
// modules under /usr/share/nodejs/xterm/lib) into one browser script for
// the console, without npm: each module becomes a function in a table and
// a few lines of require() resolve their relative imports. It writes
// console/assets/xterm/{xterm.js,xterm.css,LICENSE}. Run it with
// `go generate ./gateway` after `apt-get install node-xterm`.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const src = "/usr/share/nodejs/xterm"

func main() {
	out := filepath.Join("console", "assets", "xterm")
	if err := os.MkdirAll(out, 0o755); err != nil {
		fail(err)
	}
	var names []string
	root := filepath.Join(src, "lib")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".test.js") {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		fail(err)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// xterm.js 3.8.1 from Debian's node-xterm (MIT licence: LICENSE beside this\n// file), bundled by gateway/gen_xterm.go. Do not edit.\n")
	b.WriteString("(function () {\nvar defs = {}, cache = {};\n")
	for _, n := range names {
		code, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			fail(err)
		}
		// Source map comments point at files not shipped here.
		text := strings.ReplaceAll(string(code), "//# sourceMappingURL=", "// sourceMappingURL: ")
		fmt.Fprintf(&b, "defs[%s] = function (module, exports, require) {\n%s\n};\n", strconv.Quote(n), text)
	}
	b.WriteString(`function dirname(p) { return p.slice(0, p.lastIndexOf("/")); }
function resolve(from, p) {
  var parts = (dirname(from) + "/" + p).split("/"), out = [];
  for (var i = 0; i < parts.length; i++) {
    if (parts[i] === "..") out.pop(); else if (parts[i] !== "." && parts[i] !== "") out.push(parts[i]);
  }
  var n = out.join("/");
  if (defs[n + ".js"]) return n + ".js";
  if (defs[n + "/index.js"]) return n + "/index.js";
  return n;
}
function load(n) {
  if (cache[n]) return cache[n].exports;
  if (!defs[n]) throw new Error("xterm bundle: no module " + n);
  var module = { exports: {} };
  cache[n] = module;
  defs[n](module, module.exports, function (p) { return load(resolve(n, p)); });
  return module.exports;
}
window.Terminal = load("lib/public/Terminal.js").Terminal;
window.XtermFit = load("lib/addons/fit/fit.js");
})();
`)
	if err := os.WriteFile(filepath.Join(out, "xterm.js"), []byte(b.String()), 0o644); err != nil {
		fail(err)
	}
	css, err := os.ReadFile(filepath.Join(src, "lib", "xterm.css"))
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(out, "xterm.css"), css, 0o644); err != nil {
		fail(err)
	}
	lic, err := os.ReadFile("/usr/share/doc/node-xterm/copyright")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(out, "LICENSE"), lic, 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("bundled %d modules, %d bytes\n", len(names), b.Len())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen_xterm:", err)
	os.Exit(1)
}
