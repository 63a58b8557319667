// How fast a 48 MiB file comes back: faults on a private mapping
// (MADV_SEQUENTIAL or normal), readahead() then faults, pread.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  const char*path=argv[1]; const char*mode=argv[2]; size_t n=(size_t)atol(argv[3])<<20;
  int fd=open(path,O_RDONLY); posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED);
  double t0=now(); volatile unsigned long s=0;
  if(!strcmp(mode,"pread")){char*b=malloc(1<<20);for(size_t o=0;o<n;o+=1<<20)pread(fd,b,1<<20,o);}
  else{
    char*p=mmap(NULL,n,PROT_READ|PROT_WRITE,MAP_PRIVATE,fd,0);
    if(!strcmp(mode,"seq"))madvise(p,n,MADV_SEQUENTIAL);
    if(!strcmp(mode,"ra"))readahead(fd,0,n);
    if(!strcmp(mode,"willneed"))madvise(p,n,MADV_WILLNEED);
    if(!strcmp(mode,"populate"))madvise(p,n,MADV_POPULATE_READ);
    for(size_t o=0;o<n;o+=4096)s+=p[o];
  }
  double t=now()-t0; printf("%-9s %6.0f MiB/s\n",mode,(n>>20)/t); return 0;}
