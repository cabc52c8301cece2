#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# craft -i in the peer guest: every paced frame reaches the main guest.
. "$(dirname "$0")/lib.sh"
vm --kernel "$KERNEL" --peer 'sh /tests/guest/craft-rx.sh' -- sh /tests/guest/craft-rx.sh
