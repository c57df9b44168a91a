"""Issue 14 acceptance 5: one vec_add recorded once in a for_range of N iterations and run by
npusim.tik, against the same loop unrolled in pure-Python numpy. Needs the extension built in
release mode (pip install . from the repository root). Prints best-of-5 times and the ratio."""
import time, numpy as np
from npusim.tbe import tik
N = 10**4
t=tik.Tik()
g=t.Tensor("float16",(128,),name="g",scope=tik.scope_gm)
a=t.Tensor("float16",(128,),name="a",scope=tik.scope_ubuf)
b=t.Tensor("float16",(128,),name="b",scope=tik.scope_ubuf)
t.data_move(a,g,0,1,8,0,0)
with t.for_range(0,N):
    t.vec_add(128,b,a,a,1,8,8,8)
t.data_move(g,b,0,1,8,0,0)
t.BuildCCE(kernel_name="k",inputs=[g],outputs=[g])
x=np.ones(128,np.float16)
best=1e9
for _ in range(5):
    t0=time.perf_counter(); t.tikdb.start_debug(feed_dict={"g":x}); best=min(best,time.perf_counter()-t0)
best2=1e9
for _ in range(5):
    t0=time.perf_counter()
    A=x.copy(); 
    for i in range(N): B=A+A
    best2=min(best2,time.perf_counter()-t0)
print(f"npusim.tik {N} vec_add in for_range: {best*1e3:.2f} ms; numpy unrolled: {best2*1e3:.2f} ms; ratio {best2/best:.1f}x")
