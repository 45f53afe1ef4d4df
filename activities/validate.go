package activities

import "github.com/berthdev/berth/workflows/contract"

// ErrInvalidInput is the error type of an activity that refuses its input;
// the same string as the workflow's validation errors.
const ErrInvalidInput = contract.ErrValidation

// Every activity checks the names and ids it turns into paths, Docker names
// or addresses before it touches Docker, the disk or the network (the
// checks are the contract's: BootInput.Validate, Container.Validate and its
// parts): the workflow checks them too, but an activity can be scheduled by
// any workflow on its queue, including one started by hand.
