// What an app names when it uses AbctlClient, re-exported one declaration at a time: the paywall
// model (ResolvedPaywall, ResolvedPlan, ResolvedCopy, CopyRecipe, DiscountFraming, DiscountClaim), the copy
// vocabulary (CopyGuard, CopySource, FallbackReason), ids, event types and JSON values. The rest of
// ExperimentDefinitions and PaywallCopy (Experiment, Variant, Placement, the loaders, validation)
// stays out of an app's namespace.
@_exported import struct ExperimentDefinitions.UserID
@_exported import struct ExperimentDefinitions.EventID
@_exported import enum ExperimentDefinitions.EventType
@_exported import enum ExperimentDefinitions.JSONValue
@_exported import struct ExperimentDefinitions.CopyGuard
@_exported import enum ExperimentDefinitions.CopySource
@_exported import enum ExperimentDefinitions.FallbackReason
@_exported import enum ExperimentDefinitions.DiscountFraming
@_exported import enum ExperimentDefinitions.DiscountClaim
@_exported import struct PaywallCopy.ResolvedPaywall
@_exported import struct PaywallCopy.ResolvedPlan
@_exported import enum PaywallCopy.ResolvedCopy
@_exported import struct PaywallCopy.CopyRecipe
