package dockerrt

// SameNamespace: an object of namespace, or one without the label, which
// predates it and is judged as this namespace's (reconciliation then keeps
// a missing sandbox's volume; see internal/reconcile).
func SameNamespace(labels map[string]string, namespace string) bool {
	ns, ok := labels[LabelNamespace]
	return !ok || ns == namespace
}
