// The paywall model (ResolvedPaywall, ResolvedCopy, CopyRecipe) and the copy vocabulary (CopyGuard,
// CopySource, FallbackReason, JSONValue) are the project's own; an app that imports AbctlClient
// sees them without importing the targets they live in.
@_exported import ExperimentDefinitions
@_exported import PaywallCopy
