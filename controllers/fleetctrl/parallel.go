package fleetctrl

import "sync"

// resultWorkers write a step's results and create its benches in parallel (a round's start
// writes one result per node and creates up to maxParallel benches).
const resultWorkers = 8

// inParallel calls do on every item, resultWorkers at once, and returns the first error.
func inParallel[T any](items []T, do func(T) error) error {
	work := make(chan T)
	errs := make(chan error, len(items))
	var wg sync.WaitGroup
	for w := 0; w < min(resultWorkers, len(items)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range work {
				if err := do(item); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, item := range items {
		work <- item
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}
