/// The tool's version, as `--version` and the User-Agent show it.
public enum NottiMediaVersion {
    public static let string = "0.1.0"
}
