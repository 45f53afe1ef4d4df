// Command previewapp is the app the preview tests run inside a sandbox (a
// static binary: the test image is busybox only). It listens on each port
// given as an argument and serves:
//
//	/hello          "hello from previewapp on PORT over PROTO"
//	/ws             a WebSocket echo: each message is sent back as it came
//	/stream?n=&gap= n chunks, gap apart, each flushed as written
//	/file?path=     the file at path (http.ServeContent: length, ranges)
//	/headers        the request's headers as received, one per line
//	/echo           the request body back as it arrives (full duplex), the
//	                protocol it came over in X-Proto, a Grpc-Status trailer
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/coder/websocket"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: previewapp PORT...")
	}
	errc := make(chan error, len(os.Args))
	for _, port := range os.Args[1:] {
		go func() { errc <- serve(port) }()
	}
	log.Fatal(<-errc)
}

func serve(port string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from previewapp on %s over %s", port, r.Proto)
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) { r.Header.Write(w) })
	mux.HandleFunc("/ws", echo)
	mux.HandleFunc("/stream", stream)
	mux.HandleFunc("/echo", echoBody)
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(r.URL.Query().Get("path"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
	})
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return (&http.Server{Addr: ":" + port, Handler: mux, Protocols: p}).ListenAndServe()
}

func echo(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(4 << 20) // the tests echo messages of 1 MiB
	ctx := context.Background()
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if err := c.Write(ctx, typ, msg); err != nil {
			return
		}
	}
}

func stream(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	gap, _ := time.ParseDuration(r.URL.Query().Get("gap"))
	w.Header().Set("Content-Type", "text/plain")
	for i := range n {
		if i > 0 {
			time.Sleep(gap)
		}
		fmt.Fprintf(w, "chunk %d over %s\n", i, r.Proto)
		http.NewResponseController(w).Flush()
	}
}

func echoBody(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex()
	w.Header().Set("X-Proto", r.Proto)
	w.Header().Set("Trailer", "Grpc-Status")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			break
		}
	}
	w.Header().Set("Grpc-Status", "0")
}
