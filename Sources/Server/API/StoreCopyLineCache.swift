import CopyGeneration
import Events
import PaywallCopy

/// Keeps the lines the generator accepted in the store's `copy_cache`, so they outlive a restart.
struct StoreCopyLineCache: CopyLineCache {
    let store: any CopyLineStore
    let log: Log

    func cachedLine(experiment: String, variant: String, brief: String) -> String? {
        do {
            return try store.cachedCopyLine(experiment: experiment, variant: variant, brief: brief)?.line
        } catch {
            // Without the cache the line is generated again: slower, never wrong.
            log.buffered(level: .warning, "copy cache read failed", [("experiment", .string(experiment)), ("error", .string(String(describing: error)))])
            return nil
        }
    }

    func saveLine(_ line: String, experiment: String, variant: String, brief: String) {
        do {
            try store.saveCopyLine(line, experiment: experiment, variant: variant, brief: brief)
        } catch {
            log.write(level: .warning, "copy cache write failed; the line is kept in memory only",
                             ["experiment": .string(experiment), "variant": .string(variant), "error": .string(String(describing: error))])
        }
    }
}
