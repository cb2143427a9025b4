cd "$(dirname "$0")/../../../../../.."   # the repository root; /tmp/cascade-old: the binary before the change
photo=../shared/data/PennFudanPed/PNGImages/FudanPed00041.png
for r in 1 2; do
  for m in inria-hog-nested inria-hog-cascade; do
    for b in old new; do
      bin=/tmp/cascade-old; [ $b = new ] && bin=./build/tools/cascade
      $bin -q bench detect --backend cpu --model experiments/models/$m.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 5 --cpu-threads 1 --out /tmp/ab/$m-$b-$r.md > /dev/null 2>&1
      $bin -q bench detect --backend cpu --model experiments/models/$m.h5 --sizes 1280x960 --scale-steps 1.05 --strides 8 --cpu-repeats 5 --cpu-threads 1 --frame $photo --out /tmp/ab/$m-$b-photo-$r.md > /dev/null 2>&1
      echo "$m $b round $r: synthetic $(grep 'cascadekit CPU, 1 thread' /tmp/ab/$m-$b-$r.md | cut -d'|' -f3) photo $(grep 'cascadekit CPU, 1 thread' /tmp/ab/$m-$b-photo-$r.md | cut -d'|' -f3)"
    done
  done
done
