package contract

import "github.com/berthdev/berth/api"

// maxActorField bounds an actor's id and name as the workflow keeps them.
const maxActorField = 128

// CleanActor is who as the workflow records it: nil for the zero actor
// (a caller that named none) or an unknown kind, fields cut to a bound.
func CleanActor(who api.Actor) *api.Actor {
	switch who.Kind {
	case api.ActorAdmin, api.ActorToken, api.ActorSystem, api.ActorPreview:
	default:
		return nil
	}
	if len(who.ID) > maxActorField {
		who.ID = who.ID[:maxActorField]
	}
	if len(who.Name) > maxActorField {
		who.Name = who.Name[:maxActorField]
	}
	return &who
}

// System is the actor of what Berth does by itself.
var System = api.Actor{Kind: api.ActorSystem}
