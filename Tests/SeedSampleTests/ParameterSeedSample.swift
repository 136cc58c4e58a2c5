public import Sluice

/// The `Parameter` declaration of seed 000, as written.
///
/// Swift 5 mode accepts its key paths, which are not `Sendable`; Sluice's own `Parameter` has the same four cases
/// with the same labels, and asks for `Sendable` key paths so that endpoints can cross tasks in Swift 6. This
/// declaration shadows Sluice's within this target only.
public enum Parameter<T> {
    case form(String, path: PartialKeyPath<T>)
    case formValue(String, value: PathRepresentable)
    case query(String, path: PartialKeyPath<T>)
    case queryValue(String, value: PathRepresentable)
}
