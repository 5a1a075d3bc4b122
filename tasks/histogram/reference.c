void histogram(const int *data, int *bins, int n, int nbins) {
  for (int b = 0; b < nbins; ++b)
    bins[b] = 0;
  for (int i = 0; i < n; ++i)
    if (data[i] >= 0 && data[i] < nbins)
      bins[data[i]]++;
}
