package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spiralbench/spiralbench/pkg/liveview"
)

// watchLog draws the live view from progress lines read from a file or stdin ("-"): a data
// plane run by hand (`spiral-dataplane ... | sbctl watch --log -`) outside Kubernetes. It
// redraws once a second and once more at the end of the input.
func watchLog(ctx context.Context, w io.Writer, path string, width int) error {
	in := io.Reader(os.Stdin)
	title := "spiral-dataplane (stdin)"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in, title = f, path
	}
	var mu sync.Mutex
	view := liveview.New(title)
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if p, ok := liveview.Parse(sc.Bytes()); ok {
				mu.Lock()
				view.Add(p)
				mu.Unlock()
			}
		}
		done <- sc.Err()
	}()
	draw := func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, "\033[H\033[2J")
		view.Render(w, width)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			draw()
			return err
		case <-tick.C:
			draw()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
