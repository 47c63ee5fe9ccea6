// The ids are defined beside the experiment model, where the AbctlClient (which may not see this
// target) can use them too; every importer of Events gets them as part of the event model.
@_exported import struct ExperimentDefinitions.UserID
@_exported import struct ExperimentDefinitions.EventID
@_exported import protocol ExperimentDefinitions.BytewiseText
