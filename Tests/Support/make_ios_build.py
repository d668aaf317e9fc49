#!/usr/bin/env python3
"""Makes an iOS build for the tests of `notti-media app` (SPEC 22), as Xcode lays one out, from a JSON
description on stdin: an .app folder, an .xcarchive folder or an .ipa (zip), with binary or XML property
lists (Python's plistlib), Mach-O executables whose load commands name the given dylibs (thin arm64, or
fat x86_64 + arm64), embedded frameworks' Info.plist, and an embedded.mobileprovision signed by OpenSSL
(a real CMS envelope). Prints nothing; the tests read the build back with Python's own readers too.

    {"output": "ipa"|"app"|"xcarchive", "path": "...", "name": "Shop",
     "app": {"bundleId", "version", "minimumOS", "plist": "binary"|"xml", "profile": {...entitlements} | null,
             "frameworks": [{"name", "version"}]},
     "extensions": [{"name", "bundleId", "point", "principalClass", "minimumOS", "executable": true,
                     "dylibs": [...], "fat": false, "buildMinOS": "15.0", "ats": {...}, "categories": [...]}]}
"""
import json
import os
import plistlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def packed(version):
    parts = [int(p) for p in version.split(".")] + [0, 0]
    return parts[0] << 16 | parts[1] << 8 | parts[2]


def thin_macho(dylibs, minos, cputype=0x0100000C):
    commands = []
    if minos:
        commands.append(struct.pack("<IIIIII", 0x32, 24, 2, packed(minos), packed("17.0"), 0))
    for name in dylibs:
        raw = name.encode() + b"\0"
        size = (24 + len(raw) + 7) // 8 * 8
        commands.append(struct.pack("<IIIIII", 0xC, size, 24, 2, 0x10000, 0x10000) + raw.ljust(size - 24, b"\0"))
    body = b"".join(commands)
    header = struct.pack("<IiiIIIII", 0xFEEDFACF, cputype, 0, 2, len(commands), len(body), 0x00200085, 0)
    # What follows the load commands stands for the code: never read.
    return header + body + b"\xC0\x03\x5F\xD6" * 64


def fat_macho(dylibs, minos):
    slices = [(0x01000007, 3, thin_macho(dylibs, minos, 0x01000007)), (0x0100000C, 0, thin_macho(dylibs, minos))]
    header = struct.pack(">II", 0xCAFEBABE, len(slices))
    table, data = b"", b""
    for index, (cputype, subtype, sl) in enumerate(slices):
        table += struct.pack(">iiIII", cputype, subtype, 0x4000 * (index + 1), len(sl), 14)
        data += sl.ljust(0x4000, b"\0")
    return (header + table).ljust(0x4000, b"\0") + data


def plist_bytes(value, form):
    return plistlib.dumps(value, fmt=plistlib.FMT_BINARY if form == "binary" else plistlib.FMT_XML)


def profile_bytes(entitlements, work):
    source = os.path.join(work, "profile.plist")
    with open(source, "wb") as f:
        f.write(plistlib.dumps({"Name": "Test profile", "Entitlements": entitlements, "TeamIdentifier": ["TEST"]}))
    out = os.path.join(work, "profile.der")
    subprocess.run(["openssl", "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", source,
                    "-signer", os.path.join(HERE, "tls", "server.pem"), "-inkey", os.path.join(HERE, "tls", "server.key"),
                    "-out", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, "rb") as f:
        return f.read()


def files_of(spec, work):
    """The build's files: (path inside the .app, bytes)."""
    app = spec.get("app", {})
    form = app.get("plist", "binary")
    name = spec.get("name", "Shop")
    info = {"CFBundleExecutable": name, "CFBundleIdentifier": app.get("bundleId", "com.example.shop"),
            "CFBundlePackageType": "APPL", "CFBundleShortVersionString": app.get("version", "1.0"),
            "MinimumOSVersion": app.get("minimumOS", "15.0")}
    files = [("Info.plist", plist_bytes({k: v for k, v in info.items() if v is not None}, form)),
             (name, thin_macho(["/usr/lib/libSystem.B.dylib"], app.get("minimumOS", "15.0")))]
    if app.get("profile") is not None:
        files.append(("embedded.mobileprovision", profile_bytes(app["profile"], work)))
    for framework in app.get("frameworks", []):
        files.append(("Frameworks/%s.framework/Info.plist" % framework["name"],
                      plist_bytes({"CFBundleIdentifier": "org.sdk." + framework["name"], "CFBundleShortVersionString": framework["version"]}, form)))
        files.append(("Frameworks/%s.framework/%s" % (framework["name"], framework["name"]), thin_macho([], None)))
    for ext in spec.get("extensions", []):
        folder = "PlugIns/%s.appex/" % ext["name"]
        attributes = {}
        if ext.get("point") is not None:
            attributes["NSExtensionPointIdentifier"] = ext["point"]
        if ext.get("principalClass") is not None:
            attributes["NSExtensionPrincipalClass"] = ext["principalClass"]
        if ext.get("categories") is not None:
            attributes["NSExtensionAttributes"] = {"UNNotificationExtensionCategory": ext["categories"]}
        einfo = {"CFBundleExecutable": ext["name"], "CFBundleIdentifier": ext.get("bundleId", "com.example.shop." + ext["name"]),
                 "CFBundlePackageType": "XPC!", "NSExtension": attributes}
        if ext.get("minimumOS") is not None:
            einfo["MinimumOSVersion"] = ext["minimumOS"]
        if ext.get("ats") is not None:
            einfo["NSAppTransportSecurity"] = ext["ats"]
        files.append((folder + "Info.plist", plist_bytes(einfo, form)))
        if ext.get("executable", True):
            dylibs = ["/usr/lib/libSystem.B.dylib"] + ext.get("dylibs", [])
            maker = fat_macho if ext.get("fat") else thin_macho
            files.append((folder + ext["name"], maker(dylibs, ext.get("buildMinOS"))))
    return name, files


def main():
    spec = json.load(sys.stdin)
    work = tempfile.mkdtemp()
    try:
        name, files = files_of(spec, work)
        path, output = spec["path"], spec.get("output", "ipa")
        if output == "ipa":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                for inner, data in files:
                    z.writestr("Payload/%s.app/%s" % (name, inner), data)
            return
        root = path if output == "app" else os.path.join(path, "Products", "Applications", name + ".app")
        for inner, data in files:
            target = os.path.join(root, inner)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
        if output == "xcarchive":
            with open(os.path.join(path, "Info.plist"), "wb") as f:
                f.write(plistlib.dumps({"ArchiveVersion": 2, "Name": name}))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
