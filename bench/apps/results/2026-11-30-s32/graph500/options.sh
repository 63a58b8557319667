#!/bin/bash
cd /work/wt/s32-lead || exit 1
for opt in "--node-memory 120m" "-nr 1"; do
  tag=$(echo "$opt" | tr -d ' -' )
  bench/apps/run.sh --apps graph500 --limit 128m --factor 2.75 --sizes large --modes bdmpi-best --best "$opt" --best-build /work/wt/s32-lead/build --build /work/wt/s32-lead/build --app-build /work/appbuild/s32 --repeat 1 --cap 200 --out /work/tmpres/s32/g500-$tag
done
