package v1alpha1

const (
	// FleetConditionSpecUsable is False while the manager cannot use a spec the apiserver
	// accepted (for example a node selector it cannot turn into a selector); the message says
	// what to change. It is absent while every spec was usable.
	FleetConditionSpecUsable = "SpecUsable"
	// ReasonUnusableSpec is that condition's and its event's reason.
	ReasonUnusableSpec = "UnusableSpec"
	// ReasonSpecUsable is the condition's reason once the spec is usable again.
	ReasonSpecUsable = "SpecUsable"
)
