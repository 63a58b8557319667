#!/bin/bash
# Graph500 out of core with the disk's read-ahead window at 128 KiB, then restored.
old=$(cat /sys/block/vda/queue/read_ahead_kb)
trap 'echo "$old" > /sys/block/vda/queue/read_ahead_kb' EXIT
echo 128 > /sys/block/vda/queue/read_ahead_kb
cd /work/wt/s32-lead && bench/apps/run.sh --apps graph500 --limit 128m --factor 2.75 --sizes large --modes bdmpi --build /work/wt/s32-lead/build --app-build /work/appbuild/s32 --repeat 1 --cap 200 --out /work/tmpres/s32/g500-ra128
