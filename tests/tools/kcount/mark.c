// SPDX-License-Identifier: GPL-2.0
/*
 * mark: execute kcount's marker instruction (xchg %bx,%bx) once and exit.
 * No C library: its start-up would only add user instructions to the count.
 * Build: gcc -O2 -static -nostdlib -fno-stack-protector -o mark mark.c
 */
void _start(void)
{
	__asm__ volatile("xchg %%bx, %%bx\n\t"
			 "mov $60, %%eax\n\t"	/* exit(0) */
			 "xor %%edi, %%edi\n\t"
			 "syscall" ::: "rax", "rdi", "rcx", "r11", "memory");
	__builtin_unreachable();
}
