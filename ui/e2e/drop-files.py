"""Drops files on an X window as a file manager does: the XDND protocol's source side.

Under Xvfb there is no file manager to drag from, and no Debian tool is an XDND source, so the
desktop tests play it: own XdndSelection, send XdndEnter and XdndPosition to the window, and on
its XdndStatus send XdndDrop; then answer its request for the "text/uri-list" and wait for
XdndFinished. Usage: drop-files.py WINDOW_ID X Y FILE... with DISPLAY set, X and Y on the root
window. Exits 0 once the window says the drop is finished and accepted; else 1 with why.
Uses python3-xlib.
"""

import sys
import time
from pathlib import Path
from urllib.parse import quote

from Xlib import X, display
from Xlib.protocol import event

XDND_VERSION = 5
WAIT_SECONDS = 10


def main() -> int:
    if len(sys.argv) < 5:
        print("usage: drop-files.py WINDOW_ID X Y FILE...", file=sys.stderr)
        return 2
    target_id, x, y = int(sys.argv[1], 0), int(sys.argv[2]), int(sys.argv[3])
    uris = "".join(f"file://{quote(str(Path(name).resolve()))}\r\n" for name in sys.argv[4:]).encode()

    conn = display.Display()
    atom = conn.intern_atom
    root = conn.screen().root
    target = conn.create_resource_object("window", target_id)
    source = root.create_window(-10, -10, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
    uri_list = atom("text/uri-list")
    copy = atom("XdndActionCopy")

    # A real server time for the selection and the drop (GTK converts the selection at it).
    source.change_property(atom("KAIPORT_DROP_TIME"), atom("STRING"), 8, b"")
    conn.flush()
    now = next(e.time for e in iter(conn.next_event, None) if e.type == X.PropertyNotify)
    source.set_selection_owner(atom("XdndSelection"), now)

    def send(name: str, data: list[int]) -> None:
        message = event.ClientMessage(window=target, client_type=atom(name), data=(32, data + [0] * (5 - len(data))))
        target.send_event(message, event_mask=X.NoEventMask)
        conn.flush()

    def wait_for(name: str):
        wanted = atom(name)
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            while conn.pending_events():
                got = conn.next_event()
                if got.type == X.SelectionRequest:
                    answer(got)
                elif got.type == X.ClientMessage and got.client_type == wanted:
                    return got
            time.sleep(0.01)
        return None

    def answer(request) -> None:
        # The window asks for the dropped files: the uri-list on the property it named.
        prop = request.property or request.target
        if request.target == uri_list:
            request.requestor.change_property(prop, uri_list, 8, uris)
        else:
            prop = X.NONE
        notify = event.SelectionNotify(
            time=request.time, requestor=request.requestor, selection=request.selection, target=request.target, property=prop
        )
        request.requestor.send_event(notify, event_mask=X.NoEventMask)
        conn.flush()

    send("XdndEnter", [source.id, XDND_VERSION << 24, uri_list])
    send("XdndPosition", [source.id, 0, (x << 16) | y, now, copy])
    status = wait_for("XdndStatus")
    if status is None:
        print("the window sent no XdndStatus: it does not take drops here", file=sys.stderr)
        return 1
    if not status.data[1][1] & 1:
        send("XdndLeave", [source.id])
        print("the window refused the drop at that point", file=sys.stderr)
        return 1
    send("XdndDrop", [source.id, 0, now])
    finished = wait_for("XdndFinished")
    if finished is None:
        print("the window did not finish the drop", file=sys.stderr)
        return 1
    # Version 5: bit 0 of the second word says whether the window took the data.
    if not finished.data[1][1] & 1:
        print("the window finished the drop without taking the files", file=sys.stderr)
        return 1
    print("dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
