/* ops/fft.h — the torch.fft composites, run as named decompositions (autograd/decomp.c). */
#ifndef TN_OPS_FFT_H
#define TN_OPS_FFT_H
#include "dispatch/door.h"
PyObject *tn_fft_d_fft(tn_value *a);
PyObject *tn_fft_d_ifft(tn_value *a);
PyObject *tn_fft_d_rfft(tn_value *a);
PyObject *tn_fft_d_irfft(tn_value *a);
PyObject *tn_fft_d_hfft(tn_value *a);
PyObject *tn_fft_d_ihfft(tn_value *a);
PyObject *tn_fft_d_fftn(tn_value *a);
PyObject *tn_fft_d_ifftn(tn_value *a);
PyObject *tn_fft_d_rfftn(tn_value *a);
PyObject *tn_fft_d_irfftn(tn_value *a);
PyObject *tn_fft_d_hfftn(tn_value *a);
PyObject *tn_fft_d_ihfftn(tn_value *a);
PyObject *tn_fft_d_stft(tn_value *a);
PyObject *tn_fft_d_stft_center(tn_value *a);
PyObject *tn_fft_d_istft(tn_value *a);
PyObject *tn_fft_d_fft_out(tn_value *a);
PyObject *tn_fft_d_ifft_out(tn_value *a);
PyObject *tn_fft_d_rfft_out(tn_value *a);
PyObject *tn_fft_d_irfft_out(tn_value *a);
PyObject *tn_fft_d_hfft_out(tn_value *a);
PyObject *tn_fft_d_ihfft_out(tn_value *a);
PyObject *tn_fft_d_fftn_out(tn_value *a);
PyObject *tn_fft_d_ifftn_out(tn_value *a);
PyObject *tn_fft_d_rfftn_out(tn_value *a);
PyObject *tn_fft_d_irfftn_out(tn_value *a);
PyObject *tn_fft_d_hfftn_out(tn_value *a);
PyObject *tn_fft_d_ihfftn_out(tn_value *a);
#endif
