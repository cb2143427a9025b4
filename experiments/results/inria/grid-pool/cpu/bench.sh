# CPU, this machine, one thread: the people cascades, two alternating rounds, synthetic frame and a PennFudan photo.
# Usage: [OUT=folder] bash experiments/results/inria/grid-pool/cpu/bench.sh MODEL.h5...
cd /work/main
out=${OUT:-experiments/results/inria/grid-pool/cpu}
mkdir -p $out
photo=../shared/data/PennFudanPed/PNGImages/$(ls ../shared/data/PennFudanPed/PNGImages | sed -n 41p)
for r in 1 2; do
  for m in "$@"; do
    n=$(basename $m .h5)
    ./build/tools/cascade -q bench detect --backend cpu --model $m --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 5 --cpu-threads 1 --out $out/$n-$r.md > /dev/null 2>&1
    ./build/tools/cascade -q bench detect --backend cpu --model $m --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 5 --cpu-threads 1 --frame $photo --out $out/$n-photo-$r.md > /dev/null 2>&1
    echo "$n round $r: synthetic $(grep 'cascadekit CPU, 1 thread' $out/$n-$r.md | cut -d'|' -f3) photo $(grep 'cascadekit CPU, 1 thread' $out/$n-photo-$r.md | cut -d'|' -f3)"
  done
done
